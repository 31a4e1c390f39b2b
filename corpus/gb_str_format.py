"""Graph break: formatting a tensor into a string inside a compiled function."""
import torch


def describe(x):
    y = x * 2
    label = str(y)  # <- diagnosis
    return y, len(label)


torch.compile(describe, backend="eager")(torch.randn(4))
print("ok")
