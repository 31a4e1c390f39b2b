import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import spectral_norm

torch.manual_seed(0)

critic = nn.Sequential(
    spectral_norm(nn.Linear(2, 64)), nn.LeakyReLU(0.2),
    spectral_norm(nn.Linear(64, 64)), nn.LeakyReLU(0.2),
    spectral_norm(nn.Linear(64, 1)),
)
generator = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 2))
c_critic = torch.compile(critic)
c_gen = torch.compile(generator)
opt_c = torch.optim.Adam(critic.parameters(), lr=2e-4, betas=(0.5, 0.9))
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.9))


def real_batch(n):
    angle = torch.rand(n) * 6.2832
    return torch.stack([angle.cos(), angle.sin()], dim=1) * 2 + 0.05 * torch.randn(n, 2)


for step in range(12):
    real = real_batch(64)
    fake = c_gen(torch.randn(64, 8)).detach()
    scores = c_critic(torch.cat([real, fake]))
    loss_c = nn.functional.softplus(-scores[:64]).mean() + nn.functional.softplus(scores[64:]).mean()
    opt_c.zero_grad()
    loss_c.backward()
    opt_c.step()

    loss_g = nn.functional.softplus(-c_critic(c_gen(torch.randn(64, 8)))).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    if step % 3 == 0:
        print(f"step {step} critic {loss_c.item():.4f} gen {loss_g.item():.4f}")

critic.eval()
with torch.no_grad():
    sigma = torch.linalg.matrix_norm(critic[0].weight, ord=2)
    print(f"largest singular value of layer 0: {sigma.item():.3f}")
    print(f"critic on real: {c_critic(real_batch(256)).mean().item():.4f}")
