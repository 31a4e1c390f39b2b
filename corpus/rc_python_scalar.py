"""Recompile: a Python int argument that changes between calls."""
import torch


def shift(x, n):
    return x + n  # <- diagnosis


f = torch.compile(shift, backend="eager")
for n in (1, 2, 3):
    f(torch.randn(8), n)
print("ok")
