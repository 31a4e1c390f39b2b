"""pytorch/pytorch PR #186085 ("Fix transient dispatch-mode skips in Dynamo",
https://github.com/pytorch/pytorch/pull/186085, newer than torch 2.13): Dynamo does not trace a
frame while a non-infra TorchDispatchMode such as FlopCounterMode is active ("non-infra torch
dispatch mode present, this is not supported today in torch.compile"), and it records that skip
on the code object, so a compiled model first called under FlopCounterMode is never compiled:
every later call, outside the mode, runs eager. Written as a training script that counts the
FLOPs of its first batch and then trains.
"""
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 32), torch.randint(0, 10, (8,))

with FlopCounterMode(display=False) as counter:
    compiled(x)
print("FLOPs per forward:", counter.get_total_flops())

for step in range(5):
    loss = nn.functional.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", loss.item())
