# DDP around a compiled model, gradient accumulation with no_sync, compiled eval with all_reduce.
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(10, 32), nn.LayerNorm(32), nn.GELU(), nn.Linear(32, 3))
ddp = DDP(torch.compile(net), bucket_cap_mb=1, gradient_as_bucket_view=True)
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-2)
ACCUM = 2


@torch.compile
def eval_metrics(x, y):
    logits = net(x)
    stats = torch.stack([F.cross_entropy(logits, y, reduction="sum"),
                         (logits.argmax(1) == y).sum().float()])
    dist.all_reduce(stats)
    return stats


g = torch.Generator().manual_seed(5 + rank)
for step in range(4):
    for micro in range(ACCUM):
        x, y = torch.randn(8, 10, generator=g), torch.randint(0, 3, (8,), generator=g)
        sync = micro == ACCUM - 1
        with (torch.enable_grad() if sync else ddp.no_sync()):
            (F.cross_entropy(ddp(x), y) / ACCUM).backward()
    opt.step(); opt.zero_grad()
    with torch.no_grad():
        vx, vy = torch.randn(16, 10, generator=g), torch.randint(0, 3, (16,), generator=g)
        s = eval_metrics(vx, vy)
    if rank == 0:
        print(f"step {step}: val loss {s[0].item() / (16 * world):.4f} acc {s[1].item() / (16 * world):.4f}")
print(f"rank {rank} param checksum {sum(p.sum().item() for p in net.parameters()):.4f}")
dist.destroy_process_group()
