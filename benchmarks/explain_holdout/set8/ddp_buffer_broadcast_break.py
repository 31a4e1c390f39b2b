"""pytorch/pytorch#141827 ("Compiled and masked MHA running with DDP and `no_grad()` leads to
Graph break due to unsupported builtin torch._C._distributed_c10d.PyCapsule._broadcast_coalesced",
https://github.com/pytorch/pytorch/issues/141827, open): under torch.no_grad(), DDP synchronises
a module's buffers before its forward (BatchNorm's running stats), a collective Dynamo cannot
trace, so the compiled DDP model breaks its graph there on every call. The maintainer's reduction
(a fake process group, no GPU or torchrun needed), on the CPU."""
import torch
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore

dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=2)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.BatchNorm2d(8))
compiled = torch.compile(model, backend="eager")
x = torch.randn(2, 8, 4, 4)
with torch.no_grad():
    for _ in range(3):
        out = compiled(x)
print(out.shape, torch._dynamo.utils.counters["graph_break"])
dist.destroy_process_group()
