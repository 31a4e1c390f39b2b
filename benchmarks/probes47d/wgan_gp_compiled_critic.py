# WGAN-GP critic update with a compiled critic; the gradient penalty differentiates the
# critic's input gradient (create_graph=True), a double backward
# (test_aotdispatch.py test_double_backward_errors).
import torch
import torch.nn as nn

torch.manual_seed(0)
Z, D = 8, 16
gen = nn.Sequential(nn.Linear(Z, 32), nn.ReLU(), nn.Linear(32, D))
critic = nn.Sequential(nn.Linear(D, 64), nn.Tanh(), nn.Linear(64, 1))
critic_c = torch.compile(critic)
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
LAMBDA = 10.0


def gradient_penalty(real, fake):
    eps = torch.rand(real.size(0), 1)
    interp = (eps * real + (1 - eps) * fake).requires_grad_(True)
    score = critic_c(interp)
    (grad,) = torch.autograd.grad(score.sum(), interp, create_graph=True)
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


real_data = torch.randn(256, D) * 0.5 + 1.0
for step in range(4):
    real = real_data[step * 64:(step + 1) * 64]
    with torch.no_grad():
        fake = gen(torch.randn(64, Z))
    opt_c.zero_grad()
    w_dist = critic_c(real).mean() - critic_c(fake).mean()
    gp = gradient_penalty(real, fake)
    loss = -w_dist + LAMBDA * gp
    loss.backward()
    opt_c.step()
    print(f"step {step} critic loss {loss.item():.4f} gp {gp.item():.4f}")
