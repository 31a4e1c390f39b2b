"""Compiled autograd (issue 31): a training step whose backward compiled autograd compiles,
called with two batch sizes; `compdiag show` lists each compiled-autograd graph as a compile
of its own with why it was made (tests/test_ddp.py replays its records)."""
import torch
torch._dynamo.config.compiled_autograd = True

model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))


@torch.compile
def train(x):
    loss = model(x).sum()
    loss.backward()
    return loss


for n in (8, 8, 16):
    train(torch.randn(n, 32))
print("ok")
