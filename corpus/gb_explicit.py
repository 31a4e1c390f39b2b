"""Graph break: a leftover torch._dynamo.graph_break() call."""
import torch


def f(x):
    y = x.cos()
    torch._dynamo.graph_break()  # <- diagnosis
    return y.sin()


torch.compile(f, backend="eager")(torch.randn(8))
print("ok")
