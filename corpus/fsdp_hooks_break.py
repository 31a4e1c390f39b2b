"""FSDP2 (fsdp hooks): compiling the model that holds fully_shard'ed blocks breaks the graph at
every call into a block, at FSDP's hooks (torch keeps them out of Dynamo, "skipping FSDP
hooks").

After PyTorch's FSDP2 compile tests (test/distributed/_composable/fsdp/
test_fully_shard_compile.py: fully_shard per block, then torch.compile) and torchtitan's
per-block compile, here with the root model compiled instead; world size 1 on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))
mesh = init_device_mesh("cpu", (1,))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(32, 32)
        self.b = torch.nn.Linear(32, 32)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))  # <- diagnosis


model = Net()
fully_shard(model.a, mesh=mesh)
fully_shard(model.b, mesh=mesh)
fully_shard(model, mesh=mesh)
step = torch.compile(model)
for _ in range(2):
    step(torch.randn(8, 32)).sum().backward()
dist.destroy_process_group()
print("ok")
