import torch, torch.nn as nn
from torch._dynamo.utils import counters
torch._dynamo.config.compiled_autograd = True
m = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
cm = torch.compile(m)
x = torch.randn(8, 16)
@torch.compile
def fwd_loss(x): return cm(x).pow(2).mean()
loss = fwd_loss(x); loss.backward()
print("backward outside compiled fn: CA captures =", counters["compiled_autograd"]["captures"])
@torch.compile
def step(x):
    l = cm(x).pow(2).mean(); l.backward(); return l
step(x)
print("backward inside compiled fn: CA captures =", counters["compiled_autograd"]["captures"])
