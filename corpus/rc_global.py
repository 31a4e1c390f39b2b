"""Recompile: a global Python value mutated between calls."""
import torch

TEMPERATURE = 1.0


def logits(x):
    return x / TEMPERATURE  # <- diagnosis


f = torch.compile(logits, backend="eager")
f(torch.randn(8))
TEMPERATURE = 0.5
f(torch.randn(8))
print("ok")
