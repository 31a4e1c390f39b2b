"""Recompile from duck sizing: a token classifier compiled with dynamic=True sees a first
batch of 16 sequences of 16 tokens. Torch gives the two equal sizes one symbol and guards that
they stay equal, so the next batch (16 sequences of 24 tokens) compiles again, dynamic=True
notwithstanding. The line to change is the first call, where the sizes happened to match."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Embedding(100, 32), nn.Linear(32, 5))
tag = torch.compile(model, backend="eager", dynamic=True)

first = torch.randint(0, 100, (16, 16))
print(tag(first).shape)  # <- diagnosis
for length in (24, 40, 9):
    print(tag(torch.randint(0, 100, (16, length))).shape)
