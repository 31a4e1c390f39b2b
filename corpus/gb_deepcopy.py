"""Graph break: copy.deepcopy of a tensor (the break is inside copy.py; the user line is ours)."""
import copy

import torch


def snapshot(x):
    saved = copy.deepcopy(x)  # <- diagnosis
    return saved + x


torch.compile(snapshot, backend="eager")(torch.randn(8))
print("ok")
