import math
import torch
torch._inductor.config.fallback_random = True

torch.manual_seed(0)


def double_well_grad(x):
    return 4 * x ** 3 - 4 * x


@torch.compile
def langevin_step(x, dt, temperature):
    noise = torch.randn_like(x)
    return x - dt * double_well_grad(x) + math.sqrt(2 * dt * temperature) * noise


walkers = torch.randn(20_000)
for stage in range(10):
    temperature = 2.0 * 0.7 ** stage
    dt = 1e-3 * (1 + stage)
    for _ in range(20):
        walkers = langevin_step(walkers, dt, temperature)
    in_wells = ((walkers.abs() - 1).abs() < 0.3).float().mean().item()
    print(f"T={temperature:.3f} dt={dt:.4f}: fraction near x=+-1 {in_wells:.3f}")
