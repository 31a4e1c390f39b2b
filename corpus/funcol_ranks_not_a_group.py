"""A functional collective whose group, given as a list of ranks, is no process group of the
job: a tensor-parallel layer written for four ranks, run on one. Inside the compiled function,
torch.distributed's `_resolve_group_name_by_ranks_and_tag` raises `ValueError("")`, which
Dynamo (which runs that lookup on the call's real values while tracing) reports as its own
"InternalTorchDynamoError: ValueError: " with no words. Eager raises the same error at the
same call: it is the call's error, named by the function that raised it.

The shape of holdout set21's funcol_group_ranks_missing (pytorch PR #93990's ranks form of
`group`), on a world of one on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))
TP_RANKS = [0, 1, 2, 3]


@torch.compile
def row_parallel(x, w):
    return funcol.all_reduce(x @ w, "sum", TP_RANKS)  # <- diagnosis


print(row_parallel(torch.randn(2, 8), torch.randn(8, 4)).sum())
