"""Two-rank evaluation: each rank scores its shard of a 19-example eval set (rank 0: 10,
rank 1: 9, no padding) and a compiled eval step gathers the predictions from every rank with a
functional all_gather inside the compiled function. The gathered shapes differ between the
ranks, so the collective cannot match (torch's own eval helpers pad the shards for this)."""
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.nn as nn

dist.init_process_group("gloo", timeout=timedelta(seconds=20))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3)).eval()

eval_x = torch.randn(19, 16)
shard = eval_x[rank::world]


@torch.compile
def eval_step(x):
    probs = model(x).softmax(-1)
    everyone = funcol.all_gather_tensor(probs, 0, dist.group.WORLD)
    return everyone.argmax(-1)


with torch.no_grad():
    preds = eval_step(shard)
print(f"rank {rank}: {preds.numel()} predictions gathered")
dist.destroy_process_group()
