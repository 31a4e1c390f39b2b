"""DDP (wrapping order): torch.compile(DDP(nn.Sequential(...))) compiles nothing of the model:
DDP's own forward graph-breaks, and the container's forward it calls is not a frame
torch.compile starts at.

The Sequential ToyModel of PyTorch's test/distributed/test_dynamo_distributed.py, wrapped
the other way round, at world size 1 on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
ddp = DDP(net)
step = torch.compile(ddp)  # <- diagnosis
x = torch.randn(8, 64)
for _ in range(2):
    step(x).sum().backward()
dist.destroy_process_group()
print("ok")
