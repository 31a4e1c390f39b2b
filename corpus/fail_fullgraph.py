"""Failure (dynamo): fullgraph=True turns a graph break (print) into an error."""
import torch


def f(x):
    y = x.exp()
    print("y ready")  # <- diagnosis
    return y + 1


torch.compile(f, backend="eager", fullgraph=True)(torch.randn(4))
print("ok")
