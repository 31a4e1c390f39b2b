"""DDP (split failure): the backend fails while compiling one piece of DDPOptimizer's split;
the error surfaces as BackendCompilerFailed raised through DDPOptimizer's compile_fn.

The shape of pytorch#108269 and bmaltais/kohya_ss#1687 (BackendCompilerFailed from
torch/_dynamo/backends/distributed.py compile_fn), made deterministic with Inductor's C++
bug injector on the one ReLU, which lives in the second bucket's piece; world size 1 on gloo."""
import os
import tempfile

import torch
import torch._inductor.config as inductor_config
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "compile_error"
dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(512, 512)
        self.b = torch.nn.Linear(512, 512)
        self.c = torch.nn.Linear(512, 512)

    def forward(self, x):
        x = self.a(x)
        x = torch.relu(self.b(x))  # <- diagnosis
        return self.c(x)


model = DDP(torch.compile(Net()), bucket_cap_mb=1)
model(torch.randn(8, 512)).sum().backward()
print("ok")
