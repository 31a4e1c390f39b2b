"""A functional all_reduce inside a compiled region (issue 31): `compdiag show` lists it as a
collective node of its graph, at this line (tests/test_ddp.py replays its records)."""
import os
import tempfile

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))


@torch.compile
def step(x, w):
    h = torch.relu(x @ w)
    h = funcol.all_reduce(h, "sum", dist.group.WORLD)  # <- collective
    return h.sum(0)


print(step(torch.randn(8, 16), torch.randn(16, 16)).shape)
dist.destroy_process_group()
