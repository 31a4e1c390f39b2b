"""A two-rank gloo job with one tiny compile per rank (tests/test_ranks.py).

RANKS_MODE=same: every rank compiles the same graph. RANKS_MODE=break: rank 1 alone takes a
branch with a print, a graph break on rank 1 only (the way one rank's logging or a
rank-dependent branch splits its graph, as in pytorch #108971's hangs). RANKS_MODE=kill: rank 1
SIGKILLs itself once rank 0 has finished (RANKS_PIDFILE holds rank 0's pid)."""

import os
import signal
import time

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
mode = os.environ.get("RANKS_MODE", "same")


@torch.compile
def step(x):
    y = x.sin() * 2
    if mode == "break" and rank == 1:
        print("rank 1 logs its step")
    return y + 1


dist.barrier()  # the ranks look the graph up in the shared cache at the same time
out = step(torch.ones(8))
total = out.sum().reshape(1)
dist.all_reduce(total)
dist.barrier()
if mode == "kill":
    pidfile = os.environ["RANKS_PIDFILE"]
    if rank == 0:  # written whole or not at all: rank 1 must never read a half-made file
        with open(pidfile + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(pidfile + ".tmp", pidfile)
    else:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # rank 0's whole capture first
            try:
                pid = int(open(pidfile).read())
            except (OSError, ValueError):  # not written yet
                time.sleep(0.1)
                continue
            try:
                os.kill(pid, 0)
            except OSError:  # rank 0 has exited and its launcher has reaped it
                break
            time.sleep(0.1)
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGKILL)
    dist.destroy_process_group()
    raise SystemExit(0)
dist.destroy_process_group()
print(f"rank {rank}: {total.item():.3f}")
