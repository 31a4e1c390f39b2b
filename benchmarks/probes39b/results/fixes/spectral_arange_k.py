# Grid-convergence study of an FFT Poisson solver u'' = f on a periodic domain:
# the same compiled solver is called for N = 16, 24, ..., 96 grid points.
import math

import torch


@torch.compile
def poisson_error(N):
    L = 2 * math.pi
    x = torch.arange(N, dtype=torch.float64) * (L / N)
    f = -torch.sin(3 * x) + 0.5 * torch.cos(x)
    k = torch.arange(N // 2 + 1, dtype=torch.float64) * (2 * math.pi / L)
    f_hat = torch.fft.rfft(f)
    u_hat = torch.where(k == 0, 0, -f_hat / (k * k).clamp_min(1e-30))
    u = torch.fft.irfft(u_hat, n=N)
    exact = torch.sin(3 * x) / 9 - 0.5 * torch.cos(x)
    return (u - exact).abs().max()


for N in [16, 24, 32, 48, 64, 96]:
    err = poisson_error(N)
    print(f"N={N:3d} max error {err.item():.3e}", "ok" if err < 1e-12 else "BAD")
