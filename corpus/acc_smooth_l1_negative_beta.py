# after pytorch/pytorch#194501: [torch.compile][Inductor] smooth_l1_loss with negative beta bypasses eager validation
"""Accuracy, eager rejects what compiled accepts: smooth_l1_loss with beta=-1. Eager raises
"smooth_l1_loss does not support negative values for beta"; the decomposition Inductor
compiles has no such check and returns 1.5. Run with --check-accuracy."""
import torch
import torch.nn.functional as F


def robust(left, right):
    return F.smooth_l1_loss(left, right, beta=-1.0)  # <- diagnosis


print(torch.compile(robust)(torch.tensor([1.0]), torch.tensor([0.0])))
