# Compiled validation step; the correct-prediction count is reduced onto rank 0.
import torch, torch.nn as nn, torch.distributed as dist
import torch.distributed._functional_collectives as funcol

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4)).eval()


@torch.compile
def val_step(x, y):
    logits = model(x)
    correct = (logits.argmax(dim=1) == y).sum()
    seen = torch.tensor(y.numel())
    correct = funcol.all_reduce(correct, "sum", dist.group.WORLD)
    seen = funcol.all_reduce(seen, "sum", dist.group.WORLD)
    return correct, seen


g = torch.Generator().manual_seed(7 + rank)
tot_correct, tot_seen = 0, 0
with torch.no_grad():
    for _ in range(3):
        x = torch.randn(16, 12, generator=g)
        y = torch.randint(0, 4, (16,), generator=g)
        c, n = val_step(x, y)
        tot_correct += c.item()
        tot_seen += n.item()
if rank == 0:
    print(f"val accuracy {tot_correct}/{tot_seen} = {tot_correct / tot_seen:.4f}")
dist.destroy_process_group()
