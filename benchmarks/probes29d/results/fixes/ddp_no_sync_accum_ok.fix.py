"""Two-rank DDP on gloo with gradient accumulation: 4 micro-batches per optimizer step, the
first 3 under no_sync() so that gradients are all-reduced once per step. The DDP module is
compiled.

Launch: python -m torch.distributed.run --nproc-per-node 2 ddp_no_sync_accum_ok.py"""
import contextlib
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

ACCUM = 4

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))

model = DDP(torch.compile(net))
ddp = model
opt = torch.optim.SGD(net.parameters(), lr=0.1)
g = torch.Generator().manual_seed(11 + rank)
for step in range(3):
    opt.zero_grad()
    total = 0.0
    for micro in range(ACCUM):
        x = torch.randn(8, 20, generator=g)
        y = torch.randint(0, 3, (8,), generator=g)
        ctx = ddp.no_sync() if micro < ACCUM - 1 else contextlib.nullcontext()
        with ctx:
            loss = F.cross_entropy(model(x), y) / ACCUM
            loss.backward()
        total += loss.item()
    opt.step()
    if rank == 0:
        print(f"step {step} loss {total:.4f} w0 {net[0].weight.sum().item():.4f}", flush=True)
dist.destroy_process_group()
