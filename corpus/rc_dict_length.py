"""Recompile: a dict argument whose length changes between calls (pytorch/pytorch#143670)."""
import torch


def total(x, feats):
    for v in feats.values():
        x = x + v
    return x


f = torch.compile(total, backend="eager")
for n in (1, 2, 3):
    f(torch.randn(8), {f"f{i}": torch.randn(8) for i in range(n)})  # <- diagnosis
print("ok")
