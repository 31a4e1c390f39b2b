"""Recompile: an input that flips requires_grad between calls."""
import torch


def loss_fn(x):
    return (x * x).sum()


f = torch.compile(loss_fn, backend="eager")
f(torch.randn(8))
f(torch.randn(8, requires_grad=True))  # <- diagnosis
print("ok")
