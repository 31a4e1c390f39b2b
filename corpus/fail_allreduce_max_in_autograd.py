"""Failure: `dist.all_reduce(amax, op=MAX)` on a value in the autograd graph, inside a
compiled fake-quant module. Dynamo traces it as a functional all_reduce, whose backward
exists for a sum only, so compiling the backward fails; eager's in-place all_reduce is
invisible to autograd (probes48a qat_amax_allreduce_max). At world size 1 on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))


class FakeQuant(torch.nn.Module):
    def forward(self, x):
        amax = x.abs().amax()
        dist.all_reduce(amax, op=dist.ReduceOp.MAX)  # <- diagnosis
        scale = amax.clamp(min=1e-8) / 127.0
        return (x / scale).round().clamp(-127, 127) * scale + 0 * x


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 16), FakeQuant(), torch.nn.Linear(16, 2))
compiled = torch.compile(model, backend="aot_eager")
loss = compiled(torch.randn(4, 16)).sum()
loss.backward()
dist.destroy_process_group()
print("ok")
