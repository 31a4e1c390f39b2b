# Orbit positions from Kepler's equation M = E - e sin E, solved by Newton's
# method for a batch of mean anomalies until the update is below a tolerance.
import math

import torch


@torch.compile
def solve_kepler(M, e, tol=1e-12):
    E = M.clone()
    for _ in range(8):  # fixed count; torch.where freezes converged entries
        dE = (E - e * torch.sin(E) - M) / (1 - e * torch.cos(E))
        E = torch.where(dE.abs() > tol, E - dE, E)
    return E


def orbit(t, e=0.3, a=1.0, period=1.0):
    M = 2 * math.pi * t / period
    E = solve_kepler(M, e)
    x = a * (torch.cos(E) - e)
    y = a * math.sqrt(1 - e * e) * torch.sin(E)
    return torch.stack([x, y], dim=1)


t = torch.linspace(0.0, 1.0, 9, dtype=torch.float64)
for step in range(3):
    xy = orbit(t + 0.01 * step)
    r = xy.norm(dim=1)
    print(step, [round(v, 8) for v in r.tolist()])
