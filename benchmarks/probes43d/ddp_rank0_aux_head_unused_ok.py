"""DDP + torch.compile on 2 ranks (gloo, CPU), torchrun --nproc-per-node 2.

Multi-task training where only rank 0's data shard carries the auxiliary
(regression) labels, so the aux head is used on rank 0 only; DDP is built with
find_unused_parameters=True so rank 1 reports the aux head's parameters as
ready without a gradient.  Written the way that works with compile.
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
RANK = dist.get_rank()
torch.manual_seed(0)


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.cls_head = nn.Linear(32, 4)
        self.aux_head = nn.Linear(32, 1)

    def forward(self, x, y, aux_target=None):
        h = self.body(x)
        loss = F.cross_entropy(self.cls_head(h), y)
        if aux_target is not None:
            loss = loss + 0.5 * F.mse_loss(self.aux_head(h).squeeze(-1), aux_target)
        return loss


model = DDP(MultiTask(), find_unused_parameters=True)
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for step in range(6):
    g = torch.Generator().manual_seed(10 * step + RANK)
    x = torch.randn(16, 16, generator=g)
    y = torch.randint(0, 4, (16,), generator=g)
    aux = torch.randn(16, generator=g) if RANK == 0 else None
    loss = compiled(x, y, aux)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if RANK == 0:
        print(f"step {step}: loss {loss.item():.4f}")

w = model.module.aux_head.weight.detach().clone()
gathered = [torch.empty_like(w) for _ in range(2)]
dist.all_gather(gathered, w)
if RANK == 0:
    print("aux head in sync across ranks:", torch.equal(gathered[0], gathered[1]))
    print(f"aux head weight sum {w.sum().item():.5f}")
dist.destroy_process_group()
