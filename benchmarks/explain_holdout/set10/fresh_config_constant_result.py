"""pytorch/pytorch PR #189042 ("[dynamo] Add specialize_args option to assume_constant_result",
https://github.com/pytorch/pytorch/pull/189042, open): assume_constant_result guards a
user-defined object argument only by its identity (ID_MATCH), so a freshly built dataclass on
every call fails the guard each time, although its values never change: every call recompiles
("Cache line invalidated because L['cfg'] got deallocated") until the recompile limit, and the
function then runs eager. Written as a training loop that builds its loss config each step and
reads the scale through an assume_constant_result helper.
"""
import dataclasses

import torch
from torch import nn


@dataclasses.dataclass
class LossConfig:
    scale: float = 2.0


@torch.compiler.assume_constant_result
def loss_scale(cfg):
    return cfg.scale


model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile
def compute_loss(x, y, cfg):
    return nn.functional.mse_loss(model(x), y) * loss_scale(cfg)


for step in range(12):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    loss = compute_loss(x, y, LossConfig())
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", loss.item())
