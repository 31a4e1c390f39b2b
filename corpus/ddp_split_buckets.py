"""DDP (ddp split): DDPOptimizer cuts the compiled forward at DDP's gradient-bucket boundaries.

After PyTorch's test/distributed/test_dynamo_distributed.py (ToyModel under DDP with a small
bucket_cap_mb, checked for the graph splits it makes), at world size 1 on gloo, the model
compiled before DDP wraps it (so DDP's own forward runs eagerly)."""
import os
import tempfile

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))


class ToyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(512, 512)
        self.b = torch.nn.Linear(512, 512)
        self.c = torch.nn.Linear(512, 512)

    def forward(self, x):
        x = torch.relu(self.a(x))
        x = torch.relu(self.b(x))
        return self.c(x)


torch.manual_seed(0)
model = DDP(torch.compile(ToyModel()), bucket_cap_mb=1)  # <- diagnosis
x = torch.randn(8, 512)
for _ in range(2):
    model(x).sum().backward()
dist.destroy_process_group()
print("ok")
