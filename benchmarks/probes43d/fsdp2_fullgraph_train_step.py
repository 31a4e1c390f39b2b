"""FSDP2 (fully_shard) training of a small MLP classifier on 2 ranks (gloo, CPU),
torchrun --nproc-per-node 2.  The whole train step (forward + loss) is compiled
with fullgraph=True so that "any graph break is an error".
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
RANK = dist.get_rank()
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Classifier(nn.Module):
    def __init__(self, d=32, n_blocks=2, n_cls=6):
        super().__init__()
        self.inp = nn.Linear(12, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(n_blocks))
        self.out = nn.Linear(d, n_cls)

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = b(h)
        return self.out(h)


model = Classifier()
for block in model.blocks:
    fully_shard(block)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)


@torch.compile(fullgraph=True)
def loss_fn(x, y):
    logits = model(x)
    return F.cross_entropy(logits, y, label_smoothing=0.1)


for step in range(5):
    g = torch.Generator().manual_seed(1000 * RANK + step)
    x = torch.randn(16, 12, generator=g)
    y = torch.randint(0, 6, (16,), generator=g)
    loss = loss_fn(x, y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    if RANK == 0:
        print(f"step {step}: loss {loss.item():.4f}")
dist.destroy_process_group()
