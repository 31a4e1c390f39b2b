import torch
import torch.nn as nn

torch.manual_seed(0)
T = 100
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)


class Denoiser(nn.Module):
    def __init__(self, dim=16, hidden=96):
        super().__init__()
        self.t_embed = nn.Embedding(T, hidden)
        self.inp = nn.Linear(dim, hidden)
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.out(self.inp(x) + self.t_embed(t).expand(x.shape[0], -1))


model = Denoiser().eval()


@torch.compile
def p_sample(x, t):
    eps = model(x, t)
    mean = (x - betas[t] / torch.sqrt(1 - alphas_cumprod[t]) * eps) / torch.sqrt(alphas[t])
    noise = torch.randn_like(x) * (t > 0)
    return mean + torch.sqrt(betas[t]) * noise


with torch.no_grad():
    x = torch.randn(64, 16)
    for t in torch.arange(T - 1, -1, -1):
        x = p_sample(x, t)
print(f"samples: mean {x.mean().item():.4f} std {x.std().item():.4f}")
