"""Recompile: a string option passed as an argument."""
import torch


def act(x, kind):
    if kind == "relu":  # <- diagnosis
        return x.relu()
    return x.sigmoid()


f = torch.compile(act, backend="eager")
f(torch.randn(4), "relu")
f(torch.randn(4), "sigmoid")
print("ok")
