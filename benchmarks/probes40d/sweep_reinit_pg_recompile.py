# Learning-rate sweep run in one process (world size 1). run_trial() is the same entry point the
# team launches under torchrun, so every trial sets up and tears down its own process group; the
# compiled loss averages the logged loss across ranks.
# Run: python sweep_reinit_pg_recompile.py
import datetime
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29561")


@torch.compile
def loss_and_log(model, x, y):
    loss = F.mse_loss(model(x), y)
    logged = loss.detach().clone()
    dist.all_reduce(logged, op=dist.ReduceOp.AVG)
    return loss, logged


def run_trial(lr, steps=5):
    dist.init_process_group("gloo", rank=0, world_size=1, timeout=datetime.timedelta(seconds=60))
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    x = torch.randn(64, 8)
    y = x.sum(-1, keepdim=True).sin()
    for _ in range(steps):
        loss, logged = loss_and_log(model, x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()
    return logged.item()


for lr in [0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 0.4]:
    print(f"lr={lr:<5} final loss {run_trial(lr):.4f}")
