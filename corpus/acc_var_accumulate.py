"""Accuracy (a miscompile): the variance of values around 1e5 on the CPU. Eager accumulates in
double and matches float64; Inductor accumulates in float32 and is thousands of times further
off. After pytorch/pytorch#197089 ("torch.std/var accumulate in float32": N(1e5, 1) inputs give
a relative error of 3e-3 instead of 5e-8)."""
import torch


def spread(x):
    return torch.var(x, dim=-1)  # <- diagnosis


x = torch.randn(4, 4096) + 1e5
print(torch.compile(spread)(x))
