"""Particle-in-cell toy: particles drift, and their charge is deposited onto a 1-D
grid every step; the step function works on numpy arrays and is compiled."""
import numpy as np
import torch

N_CELLS, N_PARTICLES, DT = 64, 2000, 0.05


@torch.compile
def deposit_and_push(x, v, charge):
    cells = np.floor(x).astype(np.int64) % N_CELLS
    rho = np.bincount(cells, weights=charge, minlength=N_CELLS)
    field = np.gradient(rho - rho.mean())
    v = v - DT * field[cells]
    x = (x + DT * v) % N_CELLS
    return x, v, rho


rng = np.random.default_rng(1)
x = rng.uniform(0, N_CELLS, N_PARTICLES)
v = rng.normal(0.0, 0.5, N_PARTICLES)
charge = np.full(N_PARTICLES, 1.0 / N_PARTICLES * N_CELLS)

for step in range(200):
    x, v, rho = deposit_and_push(x, v, charge)
    if step % 50 == 0:
        print(f"step {step}: rho max={rho.max():.3f} kinetic={0.5 * (v ** 2).mean():.5f}")
print(f"final rho std={rho.std():.4f}")
