"""Compiled autograd with DDP's C++ reducer (PR #150073 "[ca][ddp] loud error with c++ reducer",
https://github.com/pytorch/pytorch/pull/150073, and PR #152735, which found the C++ reducer
silently no-oping its all-reduce under compiled autograd), as a real two-rank job on gloo.

A user turns on compiled autograd (`torch._dynamo.config.compiled_autograd = True`) and compiles
a training step that runs DDP's forward and `loss.backward()`, but leaves `optimize_ddp` at its
default, so DDP keeps its C++ reducer. When the compiled step's backward runs under compiled
autograd, the reducer's hook refuses: "Compiled autograd is not compatible with C++ DDP Reducer,
please use torch._dynamo.config.optimize_ddp="python_reducer"". The rank that raises first ends
the job; the launcher stops the other. Eager (no compiled autograd) trains.

    python -m torch.distributed.run --nproc-per-node 2 ca_ddp_cpp_reducer.py
"""
import datetime

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
torch._dynamo.config.compiled_autograd = True

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)


@torch.compile
def train_step(x, y):
    loss = torch.nn.functional.mse_loss(ddp(x), y)
    loss.backward()
    return loss


torch.manual_seed(rank)
for step in range(3):
    x, y = torch.randn(8, 16), torch.randn(8, 4)
    loss = train_step(x, y)
    opt.step()
    opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
