"""Two-rank evaluation on gloo: each rank scores its shard, and the compiled metric step
averages the per-rank accuracy with an all_reduce.

Launch: python -m torch.distributed.run --nproc-per-node 2 allreduce_async_metric.py"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(24, 48), nn.GELU(), nn.Linear(48, 5))

    def forward(self, x):
        return self.net(x)


@torch.compile
def eval_step(model, x, y):
    logits = model(x)
    correct = (logits.argmax(-1) == y).float().sum()
    total = torch.tensor(float(y.numel()))
    stats = torch.stack([correct, total])
    work = dist.all_reduce(stats, op=dist.ReduceOp.SUM, async_op=True)
    work.wait()
    return stats[0] / stats[1]


dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
torch.manual_seed(0)
model = Scorer().eval()
g = torch.Generator().manual_seed(7 + rank)
with torch.no_grad():
    for batch in range(4):
        x = torch.randn(32, 24, generator=g)
        y = torch.randint(0, 5, (32,), generator=g)
        acc = eval_step(model, x, y)
        if rank == 0:
            print(f"batch {batch} global accuracy {acc.item():.4f}", flush=True)
dist.destroy_process_group()
