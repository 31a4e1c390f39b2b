import torch
import torch.nn as nn

torch.manual_seed(0)

critic = nn.Sequential(
    nn.Conv2d(3, 16, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
    nn.Conv2d(16, 32, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
    nn.Flatten(), nn.Linear(32 * 4 * 4, 1),
)
generator = nn.Sequential(nn.Linear(16, 3 * 16 * 16), nn.Tanh(), nn.Unflatten(1, (3, 16, 16)))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))


@torch.compile
def critic_loss(real, fake, lam=10.0):
    alpha = torch.rand(real.size(0), 1, 1, 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = critic(mixed)
    grads = torch.autograd.grad(out.sum(), mixed, create_graph=True)[0]
    penalty = ((grads.flatten(1).norm(dim=1) - 1) ** 2).mean()
    return critic(fake).mean() - critic(real).mean() + lam * penalty


for step in range(5):
    real = torch.randn(8, 3, 16, 16).clamp(-1, 1)
    with torch.no_grad():
        fake = generator(torch.randn(8, 16))
    loss = critic_loss(real, fake)
    opt_c.zero_grad()
    loss.backward()
    opt_c.step()
    print(f"step {step} critic loss {loss.item():.4f}")
