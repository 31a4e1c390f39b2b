"""DDP (a Python number across DDPOptimizer's cut): a scalar read with `.item()` (captured into
the graph by capture_scalar_outputs) in the first bucket's piece is used in the last one, so
DDPOptimizer's split makes the number an output of a piece, which AOTAutograd cannot compile
(the class of pytorch#196227, where a float attribute made dynamic crosses the cut); world
size 1 on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

torch._dynamo.config.capture_scalar_outputs = True
dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(512, 512)
        self.b = torch.nn.Linear(512, 512)
        self.c = torch.nn.Linear(512, 512)

    def forward(self, x):
        h = self.a(x)
        scale = h.detach().abs().amax().item()  # <- diagnosis
        h = torch.relu(self.b(h))
        return self.c(h) / scale


torch.manual_seed(0)
model = DDP(torch.compile(Net()), bucket_cap_mb=1)
model(torch.randn(8, 512)).sum().backward()
print("ok")
