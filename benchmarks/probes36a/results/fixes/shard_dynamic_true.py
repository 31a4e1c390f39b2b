# After a few warm-up steps the job forbids recompiles; the data does not split evenly over ranks.
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from datetime import timedelta

dist.init_process_group("gloo", timeout=timedelta(seconds=30))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
step_fn = torch.compile(dynamic=True)(lambda x, y: F.mse_loss(model(x), y))
WARMUP = 2

data = torch.randn(75, 6, generator=torch.Generator().manual_seed(1))
target = data.sum(1, keepdim=True)
shard = torch.arange(rank * 40, min(75, (rank + 1) * 40))  # rank 0: 40 rows, rank 1: 35 rows
for step, i in enumerate(range(0, len(shard), 8)):
    if step == WARMUP:
        torch.compiler.set_stance("fail_on_recompile")  # warm-up done: no more compiles
    idx = shard[i:i + 8]
    loss = step_fn(data[idx], target[idx])
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= world
    opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step}: batch {len(idx)} loss {loss.item():.4f}")
dist.destroy_process_group()
