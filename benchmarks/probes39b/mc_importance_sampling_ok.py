# Monte Carlo estimate of E[exp(-X^2) cos(3X)] for X ~ N(0,1) with importance
# sampling from a wider Gaussian; draws are made outside the compiled estimator
# (seeded), the estimator returns the mean and its standard error.
import math

import torch

torch.manual_seed(0)


@torch.compile
def estimate(z, sigma):
    x = sigma * z
    log_p = -0.5 * x * x - 0.5 * math.log(2 * math.pi)
    log_q = -0.5 * z * z - math.log(sigma) - 0.5 * math.log(2 * math.pi)
    w = torch.exp(log_p - log_q)
    f = torch.exp(-x * x) * torch.cos(3 * x) * w
    mean = f.mean()
    stderr = f.std() / math.sqrt(f.numel())
    return mean, stderr


exact = math.exp(-9 / 6) / math.sqrt(3)
n = 4000
for batch in range(3):
    z = torch.randn(n, dtype=torch.float64)
    m, s = estimate(z, 1.5)
    print(batch, f"{m.item():.8f} +- {s.item():.8f}", "within 4 sigma" if abs(m.item() - exact) < 4 * s.item() else "off")
