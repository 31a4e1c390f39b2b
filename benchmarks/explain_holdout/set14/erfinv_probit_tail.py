"""pytorch/pytorch#198133 ("[inductor][cpu] `torch.erfinv` loses accuracy near ±1 under
`torch.compile`", open): Inductor's C++ backend emits its own erfinv (a rational guess plus two
Newton steps whose correction cancels near ±1) instead of eager's kernel, so normal quantiles of
probabilities close to 1 come out wrong in the fifth digit, float64 included. Here: the tail
quantiles of a float64 risk report (probit of 1 - tail probability)."""
import math

import torch


def probit(p):
    return math.sqrt(2.0) * torch.erfinv(2.0 * p - 1.0)


tail = torch.tensor([5e-4, 5e-10, 5e-13, 5e-15, 1e-16], dtype=torch.float64)
p = 1.0 - tail
z = torch.compile(probit)(p)
for t, q in zip(tail.tolist(), z.tolist()):
    print(f"tail {t:.0e}: z = {q:.12f}")
