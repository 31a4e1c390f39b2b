# Compiled eval step gathers each rank's mean loss (a 0-d tensor) to report the spread.
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.GELU(), nn.Linear(20, 3)).eval()


@torch.compile(backend="aot_eager")
def eval_step(x, y):
    loss = F.cross_entropy(model(x), y)
    per_rank = [torch.zeros_like(loss) for _ in range(world)]
    dist.all_gather(per_rank, loss)
    losses = torch.stack(per_rank)
    return losses.mean(), losses.max() - losses.min()


g = torch.Generator().manual_seed(3 + rank)
with torch.no_grad():
    for step in range(2):
        x = torch.randn(24, 10, generator=g)
        y = torch.randint(0, 3, (24,), generator=g)
        mean, spread = eval_step(x, y)
        print(f"rank {rank} step {step}: mean loss {mean.item():.4f} spread {spread.item():.4f}")
dist.destroy_process_group()
