# Distributed evaluation: each rank scores its own shard of the validation set and a compiled
# eval step sums (loss, correct, count) onto rank 0 with dist.reduce -- only rank 0 prints.
# Run: torchrun --standalone --nproc-per-node 2 reduce_dst0_eval_metrics.py
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).eval()


@torch.compile
def eval_step(x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y, reduction="sum")
    correct = (logits.argmax(-1) == y).sum().float()
    stats = torch.stack([loss, correct, torch.tensor(float(y.numel()))])
    dist.reduce(stats, dst=0)  # totals only needed on rank 0
    return stats


torch.manual_seed(100 + rank)
totals = torch.zeros(3)
with torch.no_grad():
    for _ in range(6):
        x = torch.randn(64, 32)
        y = torch.randint(0, 10, (64,))
        totals += eval_step(x, y)

if rank == 0:
    print(f"val loss {totals[0] / totals[2]:.4f}  acc {totals[1] / totals[2]:.4f}  n={int(totals[2])}")
dist.destroy_process_group()
