"""Recompile: a new nn.Module instance built inside the loop for every call."""
import torch


def apply(layer, x):
    return layer(x)  # <- diagnosis


f = torch.compile(apply, backend="eager")
for _ in range(3):
    f(torch.nn.Linear(4, 4), torch.randn(2, 4))
print("ok")
