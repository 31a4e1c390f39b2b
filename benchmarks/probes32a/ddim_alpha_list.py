import math
import torch
import torch.nn as nn

torch.manual_seed(0)
T = 1000

def cosine_alphas_cumprod(T, s=0.008):
    f = [math.cos(((t / T) + s) / (1 + s) * math.pi / 2) ** 2 for t in range(T + 1)]
    return [min(f[t] / f[0], 0.9999) for t in range(T)]

ALPHAS_CUMPROD = cosine_alphas_cumprod(T)


class Denoiser(nn.Module):
    def __init__(self, dim=32, hidden=128):
        super().__init__()
        self.time_mlp = nn.Sequential(nn.Linear(1, hidden), nn.SiLU())
        self.net = nn.Sequential(nn.Linear(dim + hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t_emb):
        h = self.time_mlp(t_emb)
        return self.net(torch.cat([x, h], dim=-1))


model = Denoiser().eval()


@torch.compile
def ddim_step(x, t, t_prev):
    a_t = ALPHAS_CUMPROD[t]
    a_prev = ALPHAS_CUMPROD[t_prev] if t_prev >= 0 else 1.0
    t_emb = torch.full((x.shape[0], 1), t / T)
    eps = model(x, t_emb)
    x0 = (x - math.sqrt(1 - a_t) * eps) / math.sqrt(a_t)
    return math.sqrt(a_prev) * x0 + math.sqrt(1 - a_prev) * eps


with torch.no_grad():
    x = torch.randn(16, 32)
    steps = list(range(T - 1, -1, -T // 20))
    for i, t in enumerate(steps):
        t_prev = steps[i + 1] if i + 1 < len(steps) else -1
        x = ddim_step(x, t, t_prev)
print("sample mean %.4f std %.4f" % (x.mean().item(), x.std().item()))
