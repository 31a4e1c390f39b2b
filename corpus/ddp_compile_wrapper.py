"""DDP (wrapping order): torch.compile(DDP(model)) traces DDP's own forward, which graph-breaks
in DistributedDataParallel (its logger, the _inside_ddp_forward context); only the model's
forward compiles, as a frame of its own.

The wrapping order of PyTorch's test/distributed/test_dynamo_distributed.py
(`torch.compile(DDP(model))`) and of the reports in pytorch#96742 and huggingface/nanoVLM#61,
at world size 1 on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(64, 64)
        self.b = torch.nn.Linear(64, 64)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


torch.manual_seed(0)
ddp = DDP(Net())
step = torch.compile(ddp)  # <- diagnosis
x = torch.randn(8, 64)
for _ in range(2):
    step(x).sum().backward()
dist.destroy_process_group()
print("ok")
