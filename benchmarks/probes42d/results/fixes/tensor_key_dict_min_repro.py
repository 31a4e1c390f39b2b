import torch, torch.nn as nn
ps = [nn.Parameter(torch.ones(3)) for _ in range(3)]
scales = {p: float(i + 1) for i, p in enumerate(ps)}
names = {p: f"w{i}" for i, p in enumerate(ps)}
@torch.compile(backend="eager")
def f(p):
    return p * scales[p]
@torch.compile(backend="eager")
def g(p):
    return names[p]
for p in ps: print(f(p).sum().item(), scales[p] * 3, g(p), names[p])
