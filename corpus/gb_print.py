"""Graph break: print() inside a compiled function."""
import torch


def f(x):
    y = torch.cos(x)
    print("debug:", y.shape)
    return torch.sin(y) + 1


compiled = torch.compile(f)
compiled(torch.randn(16))
compiled(torch.randn(32))  # a new shape: recompile
print("ok")
