"""WGAN-GP on a 2-D toy distribution (a ring of 8 Gaussians), with the critic compiled for speed.
The gradient penalty differentiates the critic with create_graph=True and the critic's loss is
then backpropagated through that gradient: a double backward through the compiled critic.
AOTAutograd's compiled backward is not differentiable: the first torch.autograd.grad works, and
the critic's loss.backward() raises "torch.compile with aot_autograd does not currently support
double backward" (runtime_wrappers.py, CompiledFunctionBackward.backward). The fix: keep the
critic that the penalty differentiates uncompiled (compile the generator only), or use a
penalty that needs no second derivative."""
import math
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

G = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                  nn.Linear(256, 2)).to(device)
D = nn.Sequential(nn.Linear(2, 256), nn.LeakyReLU(0.2), nn.Linear(256, 256), nn.LeakyReLU(0.2),
                  nn.Linear(256, 1)).to(device)
critic = torch.compile(D)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.5, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.5, 0.9))
centers = torch.tensor([[math.cos(2 * math.pi * i / 8), math.sin(2 * math.pi * i / 8)]
                        for i in range(8)], device=device) * 2.0


def gradient_penalty(real, fake):
    eps = torch.rand(real.shape[0], 1, device=device)
    x_hat = (eps * real + (1 - eps) * fake).requires_grad_(True)
    grad, = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
    return ((grad.norm(dim=1) - 1) ** 2).mean()


for step in range(200):
    real = centers[torch.randint(0, 8, (256,), device=device)] + 0.02 * torch.randn(256, 2, device=device)
    fake = G(torch.randn(256, 64, device=device)).detach()
    loss_d = critic(fake).mean() - critic(real).mean() + 10.0 * gradient_penalty(real, fake)
    opt_d.zero_grad(set_to_none=True)
    loss_d.backward()
    opt_d.step()
    if step % 5 == 0:
        loss_g = -critic(G(torch.randn(256, 64, device=device))).mean()
        opt_g.zero_grad(set_to_none=True)
        loss_g.backward()
        opt_g.step()
    if step % 50 == 0:
        print(f"step {step}: critic loss {loss_d.item():.3f}")
