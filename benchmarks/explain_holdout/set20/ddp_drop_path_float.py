"""pytorch/pytorch#196227 (open, 2026: "torch.compile with DDP - FakifiedOutWrapper crashes on
float partition outputs from recompiled stochastic-depth blocks",
https://github.com/pytorch/pytorch/issues/196227), as a real two-rank job on gloo.

A small residual MLP trained under DDP (the model compiled, then wrapped), with stochastic depth (drop path)
whose rate grows with depth: the first block's rate is 0.0, the second's 0.1. Both blocks share
one `forward` code object, so the second block recompiles with its rate as a dynamic Python
float. DDPOptimizer splits that graph at the 1 MiB bucket boundary, and the survival rate
`keep = 1.0 - p` (a float the second half needs too) becomes an output of the first piece;
AOTAutograd's FakifiedOutWrapper then fails on it ("'float' object has no attribute 'meta'") on
every rank. The same program runs in eager. (The issue's reduction breaks the graph between the
blocks explicitly, so each block is traced as its own frame; this script keeps that.)

    python -m torch.distributed.run --nproc-per-node 2 ddp_drop_path_float.py
"""
import datetime

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()


def drop_path(x, p, training):
    if not training or p == 0.0:
        return x
    keep = 1.0 - p
    mask = torch.empty([x.shape[0], 1], dtype=x.dtype).bernoulli_(keep)
    if keep > 0.0:
        mask.div_(keep)
    return x * mask


class Block(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.fc1 = nn.Linear(512, 512)
        self.fc2 = nn.Linear(512, 512)
        self.p = p

    def forward(self, x):
        x = x + drop_path(self.fc1(x), self.p, self.training)
        return x + drop_path(self.fc2(x), self.p, self.training)


class ResidualMLP(nn.Module):
    def __init__(self, depth=2, max_rate=0.1):
        super().__init__()
        rates = [max_rate * i / (depth - 1) for i in range(depth)]
        self.blocks = nn.ModuleList([Block(p) for p in rates])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
            torch._dynamo.graph_break()
        return x


torch.manual_seed(0)
model = ResidualMLP()
ddp = DDP(torch.compile(model), bucket_cap_mb=1)
opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)

torch.manual_seed(rank)
for step in range(2):
    x = torch.randn(8, 512)
    loss = ddp(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
