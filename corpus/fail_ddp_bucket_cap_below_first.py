"""Failure: DDP(torch.compile(model), bucket_cap_mb=0.25). DDPOptimizer, which splits the
compiled graph at DDP's buckets, starts with a 1 MiB bucket and asserts that the cap is not
smaller; eager DDP runs with the same cap (probes48a ddp_small_bucket_cap). At world size 1
on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256))
model = DDP(torch.compile(net, backend="eager"), bucket_cap_mb=0.25)
out = model(torch.randn(4, 256))  # <- diagnosis
out.sum().backward()
dist.destroy_process_group()
print("ok")
