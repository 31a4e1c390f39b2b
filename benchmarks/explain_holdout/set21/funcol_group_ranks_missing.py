"""A functional collective given a group as a list of ranks that is not a process group of this
job (the `ranks` form of torch.distributed._functional_collectives' `group` argument, from
PR #93990 "[PTD] Introduce tracing friendly collectives",
https://github.com/pytorch/pytorch/pull/93990), as a real two-rank job on gloo.

A row-parallel linear layer written for a 4-way tensor-parallel group keeps its group as a
hard-coded rank list, `TP_RANKS = [0, 1, 2, 3]`, and is launched on 2 ranks. Inside the compiled
function, resolving that list to a process group fails in torch's
`_resolve_group_name_by_ranks_and_tag` with an empty `ValueError("")`, which Dynamo reports as
"InternalTorchDynamoError: ValueError: " from user code at the all_reduce line; every rank ends
at its first call. The message names neither the group nor the ranks.

    python -m torch.distributed.run --nproc-per-node 2 funcol_group_ranks_missing.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
TP_RANKS = [0, 1, 2, 3]


@torch.compile
def row_parallel_linear(x_shard, w_shard):
    partial = x_shard @ w_shard
    return funcol.all_reduce(partial, "sum", TP_RANKS)


torch.manual_seed(0)
w_shard = torch.randn(8, 4)
torch.manual_seed(rank)
for step in range(2):
    out = row_parallel_linear(torch.randn(2, 8), w_shard)
    print(f"rank {rank} step {step} out {out.sum().item():.4f}", flush=True)
dist.destroy_process_group()
