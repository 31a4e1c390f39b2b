"""Two-process data-parallel training (DDP on the gloo backend, CPU) of a small classifier,
compiled. The main process also keeps the largest logit of the last batch for its progress line.

Launch: python -m torch.distributed.run --nproc-per-node 2 ddp_main_rank_stats.py"""
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 4)
        self.last_max_logit = 0.0

    def forward(self, x):
        logits = self.head(self.body(x))
        if dist.get_rank() == 0:
            self.last_max_logit = logits.max().item()
        return logits


dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = Classifier()
cmodel = DDP(torch.compile(model))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
g = torch.Generator().manual_seed(100 + rank)
for step in range(6):
    x, y = torch.randn(16, 32, generator=g), torch.randint(0, 4, (16,), generator=g)
    loss = F.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f} max logit {model.last_max_logit:.3f}", flush=True)
dist.barrier()
if rank == 0:
    print("done", flush=True)
dist.destroy_process_group()
