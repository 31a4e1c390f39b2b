"""The real multi-rank job behind benchmarks/ranks/run.py and docs/ranks.md: two gloo ranks on
the CPU, each compiling a step with an all_reduce inside the compiled graph. Rank 1 alone
takes a logging branch (a graph break on rank 1 only), so its collectives land in another
graph: the divergence that hangs real NCCL jobs (pytorch #108971 is the slow-compile form).

    TORCH_TRACE=DIR torchrun --standalone --nproc-per-node 2 benchmarks/ranks/job.py
"""

import os

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


@torch.compile
def step(x, w):
    h = torch.relu(x @ w)
    if rank == 1 and os.environ.get("JOB_DIVERGE", "1") == "1":
        print(f"rank {rank}: step")
    dist.all_reduce(h)
    return h.sum(dim=1)


for n in (8, 16):
    out = step(torch.randn(n, 32), torch.randn(32, 32))
dist.barrier()
dist.destroy_process_group()
