"""Recompile: a Python int argument that changes between calls."""
import torch


def shift(x, n):
    return x + n


f = torch.compile(shift, backend="eager")
for n in (1, 2, 3):
    f(torch.randn(8), n)  # <- diagnosis
print("ok")
