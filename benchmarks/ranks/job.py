"""The real multi-rank job behind benchmarks/ranks/run.py and docs/ranks.md: two gloo ranks on
the CPU, each compiling a step with an all_reduce inside the compiled graph, called with two
batch sizes. JOB_DIVERGE says how rank 1 differs:

- break (the default): rank 1 alone takes a logging branch, a graph break on rank 1 only, so
  its all_reduce lands in another graph;
- collective: rank 1 reduces outside the compiled step (eagerly, after it), so the ranks
  still meet at run time but their compiled graphs hold different collectives, the
  divergence that deadlocks when the graphs reorder them (NCCL hangs, pytorch #108971's kin);
- none: every rank runs the same code.

    TORCH_TRACE=DIR torchrun --standalone --nproc-per-node 2 benchmarks/ranks/job.py
"""

import os

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


DIVERGE = os.environ.get("JOB_DIVERGE", "break") if rank == 1 else "none"


@torch.compile
def step(x, w):
    h = torch.relu(x @ w)
    if DIVERGE == "break":
        print(f"rank {rank}: step")
    if DIVERGE != "collective":
        dist.all_reduce(h)
    return h


for n in (8, 16):
    out = step(torch.randn(n, 32), torch.randn(32, 32))
    if DIVERGE == "collective":
        dist.all_reduce(out)
dist.barrier()
dist.destroy_process_group()
