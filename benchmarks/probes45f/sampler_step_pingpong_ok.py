"""Toy diffusion-style sampler.  The compiled update writes into a caller-supplied
output buffer (`out`), like many kernels' out= APIs.  The schedule
always ping-pongs between two buffers (correct cousin: `x` and `out` never alias).

Source: pytorch test/dynamo/test_recompiles.py::test_aliasing_guard_failures.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
N, D, T = 16, 64, 20

denoiser = nn.Sequential(nn.Linear(D + 1, 128), nn.SiLU(), nn.Linear(128, D)).eval()
sigmas = torch.linspace(1.0, 0.02, T + 1)


@torch.compile
def sampler_step(x, out, sigma, sigma_next):
    t = sigma.expand(x.shape[0], 1)
    eps = denoiser(torch.cat([x, t], dim=1))
    out.copy_(x + (sigma_next - sigma) * eps)
    return out


with torch.no_grad():
    x = torch.randn(N, D)
    spare = torch.empty_like(x)
    for i in range(T):
        s, s_next = sigmas[i], sigmas[i + 1]
        new = sampler_step(x, spare, s, s_next)          # ping-pong buffers
        spare, x = x, new
        if i % 5 == 4:
            print(f"step {i + 1:2d} latent rms {x.pow(2).mean().sqrt().item():.4f}")
    print(f"final mean {x.mean().item():.5f}")
