# after pytorch/pytorch#111952: Inductor with cpu lowering fails to raise exception on invalid getitem
"""Failure (runtime, a C++ exception out of a compiled kernel): an index one past the end.
Eager raises IndexError before any kernel runs; the compiled C++ kernel checks the index
itself and throws "index out of bounds: tmp1 < 2L", which surfaces as a RuntimeError."""
import torch


def pick_next(x):
    b = torch.tensor([1])
    return x[b + 1]  # <- diagnosis


torch.compile(pick_next)(torch.zeros(2))
print("ok")
