# 1-D periodic wave equation u_tt = c^2 u_xx, leapfrog in time, centred finite
# differences with torch.roll, float64, with a discrete-energy conservation check.
import math

import torch

N, c = 64, 1.0
dx = 2 * math.pi / N
dt = 0.5 * dx / c
x = torch.arange(N, dtype=torch.float64) * dx


@torch.compile
def leapfrog(u_prev, u):
    lap = (torch.roll(u, -1) - 2 * u + torch.roll(u, 1)) / dx**2
    return 2 * u - u_prev + (c * dt) ** 2 * lap


def energy(u_prev, u):
    v = (u - u_prev) / dt
    grad = (torch.roll(u, -1) - u) * (torch.roll(u_prev, -1) - u_prev) / dx**2
    return 0.5 * (v * v).sum() * dx + 0.5 * c**2 * grad.sum() * dx


u0 = torch.exp(-4 * (x - math.pi) ** 2)
u_prev, u = u0, u0.clone()
E0 = energy(u_prev, u)
for n in range(200):
    u_prev, u = u, leapfrog(u_prev, u)
    if n % 50 == 49:
        E = energy(u_prev, u)
        print(n + 1, f"energy {E.item():.10f}", f"rel drift {abs(E - E0).item() / E0.item():.2e}")
print("u checksum:", round(u.sum().item(), 10))
