"""Failure (dynamo): in-place op on a view of a leaf that requires grad."""
import torch


def scale_(w):
    flat = w.view(-1)
    flat.mul_(0.5)  # <- diagnosis
    return w.sum()


torch.compile(scale_, backend="eager")(torch.randn(4, requires_grad=True))
print("ok")
