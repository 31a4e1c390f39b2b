"""Bouncing-ball simulation kept in numpy arrays; the physics step is compiled
(torch.compile traces numpy code) and runs in place on the state arrays."""
import numpy as np
import torch

GRAVITY, RESTITUTION, DT = 9.81, 0.8, 0.01


@torch.compile
def physics_step(pos, vel):
    vel[:, 1] -= GRAVITY * DT
    pos += vel * DT
    hit_floor = pos[:, 1] < 0.0
    vel[hit_floor, 1] *= -RESTITUTION
    pos[hit_floor, 1] = 0.0
    return np.sum(0.5 * (vel ** 2).sum(axis=1) + GRAVITY * pos[:, 1])


rng = np.random.default_rng(0)
pos = np.column_stack([rng.uniform(0, 10, 256), rng.uniform(1, 5, 256)])
vel = rng.normal(0.0, 1.0, (256, 2))

energies = []
for step in range(300):
    energies.append(physics_step(pos, vel))

print(f"energy start={energies[0]:.3f} end={energies[-1]:.3f}")
print(f"mean height={pos[:, 1].mean():.4f} on floor={(pos[:, 1] == 0.0).sum()}")
