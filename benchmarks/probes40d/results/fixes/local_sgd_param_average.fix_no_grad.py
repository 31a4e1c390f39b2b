# Local SGD: every rank trains its own replica on its own data and, every 4 steps, the replicas
# are averaged with an all_reduce over the parameters. The averaging helper is compiled.
# Run: torchrun --standalone --nproc-per-node 2 local_sgd_param_average.py
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def average_params(params):
    with torch.no_grad():  # fix: the collective under no_grad too
        for p in params:
            dist.all_reduce(p)  # sum of the replicas
        torch._foreach_div_(params, world)


torch.manual_seed(100 + rank)
for step in range(1, 13):
    x = torch.randn(32, 16)
    y = x[:, :4].sum(-1, keepdim=True)
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 0:
        average_params(list(model.parameters()))
        print(f"rank {rank} step {step} loss {loss.item():.4f} |w|={model[0].weight.norm():.4f}", flush=True)
dist.destroy_process_group()
