# Evidence, not a blind case (written after acc_dataclass_state_bn's run): the same program with
# the global model named `net` instead of `model`. Plain python: 'batches tracked: 3', 'running_mean sum: 0.18944',
# 'eval output: 2.46044'; under compdiag run --check-accuracy: 4, 0.24652, 2.49936 (the whole-function
# replay ran the model's forward a second time: BatchNorm's running stats updated twice).
"""A training step that takes its model inside a small state object (a dataclass, as many
training loops pass a TrainState around), returns a dict, and takes its target as a keyword."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainState:
    model: nn.Module
    step: int = 0


@torch.compile
def forward_loss(state, x, *, target):
    out = state.model(x)
    return {"loss": F.mse_loss(out, target), "out_mean": out.mean()}


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1))
state = TrainState(net)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for _ in range(3):
    x = torch.randn(32, 8)
    res = forward_loss(state, x, target=x.sum(1, keepdim=True))
    res["loss"].backward()
    opt.step()
    opt.zero_grad()
    state.step += 1
    print(f"step {state.step}: loss {res['loss'].item():.5f}")
bn = net[1]
print("batches tracked:", int(bn.num_batches_tracked))
print("running_mean sum:", round(bn.running_mean.sum().item(), 5))
net.eval()
with torch.no_grad():
    print("eval output:", round(net(torch.ones(2, 8)).sum().item(), 5))
