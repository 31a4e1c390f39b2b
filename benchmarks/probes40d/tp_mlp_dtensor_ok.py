# Tensor-parallel MLP (column-parallel up projection, row-parallel down projection) over a
# 2-rank CPU mesh, compiled, trained for a few steps and checked against a single-device copy.
# Run: torchrun --standalone --nproc-per-node 2 tp_mlp_dtensor_ok.py
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
mesh = init_device_mesh("cpu", (world,))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(32, 128)
        self.down = nn.Linear(128, 32)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


torch.manual_seed(0)
ref = MLP()
tp = MLP()
tp.load_state_dict(ref.state_dict())
parallelize_module(tp, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
ctp = torch.compile(tp)
opt_ref = torch.optim.SGD(ref.parameters(), lr=0.05)
opt_tp = torch.optim.SGD(tp.parameters(), lr=0.05)

torch.manual_seed(1)  # same data on both ranks: TP splits the weights, not the batch
for step in range(4):
    x = torch.randn(16, 32)
    target = torch.randn(16, 32)
    loss_tp = F.mse_loss(ctp(x), target)
    loss_ref = F.mse_loss(ref(x), target)
    for opt, loss in ((opt_tp, loss_tp), (opt_ref, loss_ref)):
        opt.zero_grad()
        loss.backward()
        opt.step()
    if rank == 0:
        print(f"step {step}: tp loss {loss_tp.item():.5f}  single-device loss {loss_ref.item():.5f}")
dist.destroy_process_group()
