"""PR #184989 ("[CUDA] Support CUDA graph while nodes for torch.while_loop",
https://github.com/pytorch/pytorch/pull/184989, May 2026: "Inductor currently lowers
torch.while_loop to a host-side Python loop over the condition result"). A fixed-point solver
written with torch.while_loop (iterate x <- tanh(W x + b) until the update is below a
tolerance, at most 50 steps), compiled with mode="reduce-overhead" for its small,
launch-bound kernels. Inductor lowers the while_loop on CUDA tensors to a host-side loop that
reads the predicate back every iteration, which a CUDA graph cannot hold, so it drops CUDA graphs
for the whole graph: "skipping cudagraphs due to control flow operator: torch.while_loop. Found
from: ... line 37". The program runs and prints; the cost is the reduce-overhead mode the user
asked for, silently not applied (torch's lowering.py `while_loop` sets
`V.graph.disable_cudagraphs_reason` for any Triton-device carried input).

graph_partition is pinned off: with Inductor's graph partitioning on (the default in the torch
2.13 wheel), the while_loop is split out instead and the rest is still CUDA-graphed, no skip.

Why it should reproduce on torch 2.11: the skip in the while_loop lowering predates 2.11 (the cond
lowering's identical skip, set10's `cg_cond_skip`, reproduced there); the torch 2.13 wheel has it
unchanged. CPU-checked with "cpu" for "cuda": the loop runs and converges in eager."""
import torch
import torch._inductor.config

torch._inductor.config.graph_partition = False
torch.manual_seed(0)
N = 256
W = (0.5 / N**0.5) * torch.randn(N, N, device="cuda")
b = torch.randn(N, device="cuda")


def solve(x0):
    def not_done(i, x, delta):
        return (i < 50) & (delta > 1e-4)

    def step(i, x, delta):
        x_next = torch.tanh(W @ x + b)
        return i + 1, x_next, (x_next - x).abs().max()

    i, x, delta = torch.while_loop(not_done, step, (torch.tensor(0, device="cuda"), x0, torch.tensor(1.0, device="cuda")))
    return i, x


compiled = torch.compile(solve, mode="reduce-overhead")
for trial in range(3):
    iters, x = compiled(torch.zeros(N, device="cuda"))
print("iterations", int(iters), "norm", round(x.norm().item(), 4))
