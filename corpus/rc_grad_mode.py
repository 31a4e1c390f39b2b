"""Recompile: called with grad enabled, then under torch.no_grad()."""
import torch


def predict(x):
    return torch.tanh(x) * 3


f = torch.compile(predict, backend="eager")
f(torch.randn(8))
with torch.no_grad():
    f(torch.randn(8))  # <- diagnosis
print("ok")
