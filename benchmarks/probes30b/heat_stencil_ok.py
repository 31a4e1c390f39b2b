import torch

nx, ny = 128, 128
dx = 1.0 / nx
alpha = 0.1
dt = 0.2 * dx * dx / alpha


@torch.compile
def heat_step(u, dt):
    lap = (torch.roll(u, 1, 0) + torch.roll(u, -1, 0) + torch.roll(u, 1, 1)
           + torch.roll(u, -1, 1) - 4 * u) / (dx * dx)
    return u + alpha * dt * lap


x = torch.linspace(0, 1, nx, dtype=torch.float64)
X, Y = torch.meshgrid(x, x, indexing="ij")
u = torch.exp(-((X - 0.5) ** 2 + (Y - 0.5) ** 2) / 0.01)
total0 = u.sum().item()
for step in range(1, 401):
    u = heat_step(u, dt)
    if step % 100 == 0:
        print(f"step {step}: max {u.max().item():.6f}, heat conserved to {abs(u.sum().item() - total0) / total0:.2e}")
