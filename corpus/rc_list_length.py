"""Recompile: a list argument whose length changes."""
import torch


def total(xs):
    return sum(xs)  # <- diagnosis


f = torch.compile(total, backend="eager")
f([torch.randn(4)] * 2)
f([torch.randn(4)] * 3)
print("ok")
