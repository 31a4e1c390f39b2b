"""Graph break: calling a function wrapped in torch.compiler.disable."""
import torch


@torch.compiler.disable
def custom_stat(t):
    return t.std()


def f(x):
    y = x * 2
    s = custom_stat(y)  # <- diagnosis
    return y / s


torch.compile(f, backend="eager")(torch.randn(8))
print("ok")
