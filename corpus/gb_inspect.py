"""Graph break: stack introspection (inspect.stack) inside a compiled function."""
import inspect

import torch


def traced(x):
    depth = len(inspect.stack())  # <- diagnosis
    return x * depth


torch.compile(traced, backend="eager")(torch.randn(4))
print("ok")
