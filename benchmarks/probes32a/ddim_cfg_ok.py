import math
import torch
import torch.nn as nn

torch.manual_seed(0)
T, NUM_CLASSES, DIM = 1000, 10, 16
betas = torch.linspace(1e-4, 0.02, T)
alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)


def timestep_embedding(t, dim=64):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class CondDenoiser(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.label_emb = nn.Embedding(NUM_CLASSES + 1, 64)
        self.net = nn.Sequential(nn.Linear(DIM + 64, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, DIM))

    def forward(self, x, t, labels):
        return self.net(torch.cat([x, timestep_embedding(t) + self.label_emb(labels)], dim=-1))


model = CondDenoiser().eval()


@torch.compile
def guided_ddim_step(x, t, t_prev, labels, guidance_scale):
    null = torch.full_like(labels, NUM_CLASSES)
    eps_cond, eps_uncond = model(torch.cat([x, x]), torch.cat([t, t]), torch.cat([labels, null])).chunk(2)
    eps = eps_uncond + guidance_scale * (eps_cond - eps_uncond)
    a_t = alphas_cumprod[t][:, None]
    a_prev = torch.where(t_prev >= 0, alphas_cumprod[t_prev.clamp(min=0)], torch.ones_like(t, dtype=torch.float32))[:, None]
    x0 = ((x - (1 - a_t).sqrt() * eps) / a_t.sqrt()).clamp(-1, 1)
    return a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * eps


with torch.no_grad():
    for guidance_scale in (1.0, 3.0, 7.5):
        labels = torch.arange(32) % NUM_CLASSES
        x = torch.randn(32, DIM)
        steps = list(range(T - 1, -1, -50))
        for i, step in enumerate(steps):
            t = torch.full((32,), step, dtype=torch.long)
            t_prev = t - 50
            x = guided_ddim_step(x, t, t_prev, labels, guidance_scale)
        print(f"guidance {guidance_scale}: sample mean {x.mean().item():.4f} std {x.std().item():.4f}")
