"""pytorch/pytorch#168911 ("Add support for cuda graph with torch.cond",
https://github.com/pytorch/pytorch/issues/168911, open; its PR #168912 captures torch.cond as CUDA
graph conditional nodes in eager and in the eager/cudagraphs backends only: "Notably, there is no
inductor support at this time"): the issue's data-dependent choice (x.sum() > 0 keeps x, else
zeros) written as torch.cond between two matmuls, compiled with mode="reduce-overhead". Inductor
lowers a torch.cond whose predicate is on the GPU by reading the predicate on the host, so it
skips CUDA graphs for the whole graph: "skipping cudagraphs due to control flow operator:
torch.cond. Found from" the cond line. Graph partitioning is off, as in the Inductor lowering
path that skips on every release (with partitions, a release may split around the cond instead).

Why it should still reproduce on torch 2.11: by design, not a bug; the cond lowering's skip
reason is older than 2.11 and unchanged in 2.13's torch/_inductor/lowering.py; #168911 is open."""
import torch

torch._inductor.config.graph_partition = False


def keep(t):
    return t.relu()


def drop(t):
    return torch.zeros_like(t)


def block(x, w):
    h = x @ w
    out = torch.cond(h.sum() > 0, keep, drop, (h,))
    return out @ w.T


compiled = torch.compile(block, mode="reduce-overhead")
w = torch.randn(64, 64, device="cuda")
for _ in range(4):
    y = compiled(torch.randn(32, 64, device="cuda"), w)
torch.cuda.synchronize()
print(y.shape)
