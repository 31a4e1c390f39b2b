# DDPM ancestral sampling loop compiled as one function, with a tqdm progress bar
# over the timesteps (the pattern of most hand-written DDPM samplers).
import math
import torch
import torch.nn as nn
from tqdm import tqdm

torch.manual_seed(0)
T = 20
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1.0 - betas
alpha_bar = torch.cumprod(alphas, 0)


class Denoiser(nn.Module):
    def __init__(self, d=8, h=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d + 1, h), nn.SiLU(), nn.Linear(h, d))

    def forward(self, x, t):
        tt = (t.float() / T).expand(x.shape[0], 1)
        return self.net(torch.cat([x, tt], 1))


model = Denoiser().eval()


cmodel = torch.compile(model)


@torch.no_grad()
def sample(model, x, noise):
    for i in tqdm(range(T - 1, -1, -1), disable=True):
        t = torch.tensor(i)
        eps = cmodel(x, t)
        a, ab = alphas[i], alpha_bar[i]
        x = (x - (1 - a) / torch.sqrt(1 - ab) * eps) / torch.sqrt(a)
        if i > 0:
            x = x + torch.sqrt(betas[i]) * noise[i]
    return x


x0 = torch.randn(4, 8)
noise = torch.randn(T, 4, 8)
out = sample(model, x0, noise)
print("sample mean %.4f std %.4f" % (out.mean().item(), out.std().item()))
