# after pytorch/pytorch#193757: [inductor][cpu] torch.compile silently accepts `binary_cross_entropy` targets outside `[0, 1]` that eager rejects
"""Accuracy, eager rejects what compiled accepts: a target of 1.5 is invalid for
binary_cross_entropy. Eager raises "all elements of target should be between 0 and 1"; the
Inductor decomposition drops the check and returns a finite -50. Run with --check-accuracy."""
import torch


def loss(t):
    return torch.nn.functional.binary_cross_entropy(torch.ones_like(t), t)  # <- diagnosis


print(torch.compile(loss)(torch.ones(4, 4) * 1.5))
