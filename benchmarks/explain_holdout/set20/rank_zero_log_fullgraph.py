"""Rank-zero-only logging inside a compiled region (Lightning-AI/pytorch-lightning#17214 and its
fix PR #17216, "Simplify `rank_zero_experiment` for `torch.compile` support",
https://github.com/Lightning-AI/pytorch-lightning/pull/17216: code that runs on rank 0 only,
traced by torch.compile), as a real two-rank job on gloo.

The training step is compiled with fullgraph=True. A helper it calls records activation
statistics on rank 0 only, turning a tensor into a Python list for the logger
(`Tensor.tolist()`), which Dynamo cannot put in a graph. So only rank 0's compile fails
(Unsupported under fullgraph) and rank 0 exits with the exception; rank 1 traces a graph
without the branch and heads for the gradient all-reduce, a partner that will never come, and
the launcher stops it (SIGTERM). Eager runs both ranks to the end.

    python -m torch.distributed.run --nproc-per-node 2 rank_zero_log_fullgraph.py
"""
import datetime

import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
activation_log = []


def record_stats(h):
    if rank == 0:
        activation_log.append(h.mean(dim=0).tolist())


def forward(x, w1, w2):
    h = torch.tanh(x @ w1)
    record_stats(h)
    return h @ w2


@torch.compile(fullgraph=True)
def train_step(x, y, w1, w2):
    return torch.nn.functional.mse_loss(forward(x, w1, w2), y)


torch.manual_seed(0)
w1 = torch.randn(16, 8, requires_grad=True)
w2 = torch.randn(8, 2, requires_grad=True)
torch.manual_seed(10 + rank)
for step in range(3):
    x, y = torch.randn(4, 16), torch.randn(4, 2)
    loss = train_step(x, y, w1, w2)
    loss.backward()
    for w in (w1, w2):
        dist.all_reduce(w.grad)
        with torch.no_grad():
            w -= 0.05 * w.grad / dist.get_world_size()
        w.grad = None
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
