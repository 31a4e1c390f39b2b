"""Failure (runtime): compiled autograd with DDP's C++ reducer. The backward runs under
`compiled_autograd._enable(...)`, and DDP's C++ reducer refuses it at the backward with torch's
advice (`optimize_ddp="python_reducer"`); no compiled frame is on the traceback, yet it is
torch.compile's check, not the program's own error (probes48a ddp_compiled_autograd_reducer;
pytorch/pytorch#109774). At world size 1 on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
model = DDP(torch.compile(net, backend="eager"))
x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
loss = torch.nn.functional.cross_entropy(model(x), y)
with torch._dynamo.compiled_autograd._enable(torch.compile(backend="eager")):
    loss.backward()  # <- diagnosis
dist.destroy_process_group()
print("ok")
