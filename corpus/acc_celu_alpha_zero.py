# after pytorch/pytorch#178480: torch.compile incorrectly accepts torch.celu_ with alpha=0 while eager mode errors
"""Accuracy, eager rejects what compiled accepts: celu with alpha=0 divides by zero. Eager
raises "alpha cannot be 0 for CELU"; the compiled in-place celu (dynamic=True) returns a
tensor with NaN. Run with --check-accuracy."""
import torch


def activate(x, alpha):
    return torch.celu_(x, alpha)  # <- diagnosis


print(torch.compile(activate, dynamic=True)(torch.randn(3, 4), 0.0))
