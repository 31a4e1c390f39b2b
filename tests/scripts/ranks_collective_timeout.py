"""Two gloo ranks whose compiled steps issue different collectives (issue 31): rank 0's graph
all-reduces, rank 1's has no collective (a rank-dependent branch inside the compiled region,
the pattern of pytorch#108971's hangs), so rank 0 waits for a partner that never comes and
gloo times out. tests/test_ddp.py replays both ranks' records:

    torchrun --nproc-per-node 2 --no-python compdiag run --store S.db THIS_FILE
"""
import datetime
import time

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()


@torch.compile
def step(x):
    h = torch.relu(x)
    if rank == 0:
        h = funcol.all_reduce(h, "sum", dist.group.WORLD)  # <- only rank 0 issues it
    return h.sum()


print(rank, step(torch.randn(8, 32)).item())
if rank == 1:
    time.sleep(20)  # still alive while rank 0 waits: rank 0 ends in gloo's timeout
dist.destroy_process_group()
