"""Recompile limit: dynamic=False plus a new sequence length every call."""
import torch


def pool(x):
    return x.mean(dim=0) + 1


f = torch.compile(pool, backend="eager", dynamic=False)
for length in range(1, 13):
    f(torch.randn(length, 4))  # <- diagnosis
print("ok")
