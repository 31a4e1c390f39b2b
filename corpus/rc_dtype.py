"""Recompile: the same function called with float32, then float64 inputs."""
import torch


def scale(x):
    return x * 2 + 1


f = torch.compile(scale, backend="eager")
f(torch.randn(8))
f(torch.randn(8, dtype=torch.float64))  # <- diagnosis
print("ok")
