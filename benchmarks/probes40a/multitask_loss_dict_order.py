# Multi-task training step that sums the per-task losses by iterating the batch's
# target dict. The data pipeline merges per-task sub-batches in whatever order the
# workers finish, so the key SET is always the same but the key ORDER changes. Dynamo
# guards on dict key order once .items() is traced (pytorch/pytorch#124779 "guard on key
# order ... when we actually need key order - like .values, .items"; see also #143670),
# so each new order is a recompile until the recompile limit stops compiling the step.
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
TASKS = ["cls", "attr", "depth", "edge"]
LOSS_W = {"cls": 1.0, "attr": 0.5, "depth": 2.0, "edge": 0.25}


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=32, d=64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU())
        self.heads = nn.ModuleDict({t: nn.Linear(d, 1) for t in TASKS})

    def forward(self, x, targets):
        h = self.trunk(x)
        total = h.new_zeros(())
        for task, tgt in targets.items():
            pred = self.heads[task](h).squeeze(-1)
            total = total + LOSS_W[task] * F.mse_loss(pred, tgt)
        return total


def next_batch():
    x = torch.randn(32, 32)
    finished = random.sample(TASKS, k=len(TASKS))  # order the task workers finished in
    return x, {t: x[:, TASKS.index(t)] * 2.0 for t in finished}


model = MultiTaskNet()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(16):
    x, targets = next_batch()
    loss = cmodel(x, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step} loss {loss.item():.4f}")
