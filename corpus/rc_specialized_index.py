"""Specialisation: with dynamic shapes on, using a size as a Python index (`range` over it)
turns the symbol back into a constant, so every new length recompiles; marking it dynamic would
not help. After pytorch/pytorch#99091 ("Recompilation then hang when dynamic=True": indexing
forced the specialisation)."""
import torch


def scan(x):
    acc = torch.zeros(x.shape[1])
    for t in range(x.shape[0]):  # <- diagnosis
        acc = acc * 0.5 + x[t]
    return acc


f = torch.compile(scan, backend="eager")
for length in (2, 3, 4, 5):
    f(torch.randn(length, 8))
print("ok")
