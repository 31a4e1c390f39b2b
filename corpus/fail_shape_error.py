"""Failure (dynamo): a shape bug caught while tracing with fake tensors."""
import torch


def add_bias(x):
    bias = torch.ones(3)
    return x + bias  # <- diagnosis


torch.compile(add_bias, backend="eager")(torch.randn(4))
print("ok")
