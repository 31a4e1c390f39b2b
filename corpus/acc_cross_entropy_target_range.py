# after pytorch/pytorch#135546: Out of range value in target tensor succeed silently for CrossEntropyLoss in torch.compile
"""Accuracy, eager rejects what compiled accepts: a class target of -1 (not the ignore_index)
is out of range. Eager's nll_loss raises "Target -1 is out of bounds"; the compiled
decomposition gathers with the index as given and returns a loss. Run with --check-accuracy."""
import torch
import torch.nn.functional as F


def loss(logits, target):
    return F.cross_entropy(logits, target)  # <- diagnosis


print(torch.compile(loss)(torch.randn(3, 5), torch.tensor([1, -1, 4])))
