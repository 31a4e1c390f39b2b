"""Recompile: a transposed (non-contiguous) view reaches the compiled function."""
import torch


def add_one(x):
    return x + 1


f = torch.compile(add_one, backend="eager", dynamic=False)
f(torch.randn(4, 6))
f(torch.randn(6, 4).t())  # <- diagnosis
print("ok")
