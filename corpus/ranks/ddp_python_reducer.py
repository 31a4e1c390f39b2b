"""DDP with optimize_ddp="python_reducer": no DDPOptimizer split; compiled autograd compiles the
backward with DDP's reducer traced into it (torch.compile's documented alternative to the
bucket split, PyTorch's test/distributed/test_dynamo_distributed.py python_reducer tests), at
world size 1 on gloo. compdiag's explain finds no problem; what it lists as information is
torch's own cache limit on compiled-autograd graphs.

    compdiag run corpus/ranks/ddp_python_reducer.py && compdiag explain
"""
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
torch._dynamo.config.optimize_ddp = "python_reducer"
model = torch.compile(DDP(ToyModel(), bucket_cap_mb=1))
x = torch.randn(8, 512)
for _ in range(2):
    with torch._dynamo.compiled_autograd._enable(torch.compile):
        model(x).sum().backward()
dist.destroy_process_group()
print("ok")
