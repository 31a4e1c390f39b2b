"""Probability mass between the mean and a point just above it: 0.5 * erf(z / sqrt(2)) for
small z, on a float32 tensor long enough for Inductor's vectorized CPU code.

https://github.com/pytorch/pytorch/issues/198183 (open): under torch.compile on CPU the
vectorized float32 torch.erf loses all relative accuracy near 0 (returns 0 for |x| <= 1e-7,
1.7e-2 relative error at 1e-5); eager uses std::erf and is right. The program prints the
compiled values only.
"""
import torch

z = torch.tensor([1e-8, 5e-8, 1e-7, 2e-7, 1e-6, 1e-5, 1e-4, 1e-3] * 4, dtype=torch.float32)


def mass_above_mean(z):
    return 0.5 * torch.erf(z * 0.7071067811865476)


mass = torch.compile(mass_above_mean)(z)
for zi, mi in zip(z[:8].tolist(), mass[:8].tolist()):
    print(f"z={zi:.0e}  P(0 < X < z)={mi:.6e}")
