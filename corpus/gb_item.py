"""Graph break: .item() turns a tensor into a Python number."""
import torch


def normalise(x):
    peak = x.abs().max().item()  # <- diagnosis
    return x / peak


torch.compile(normalise, backend="eager")(torch.randn(8))
print("ok")
