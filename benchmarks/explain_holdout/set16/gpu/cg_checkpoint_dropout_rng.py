"""pytorch/pytorch PR #146878 ("Support torch.compile rng selective activation checkpointing with
cudagraph", https://github.com/pytorch/pytorch/pull/146878, Feb 2025, "Fix for" issue #130123),
whose CUDA-graph-safe RNG states "respect fallback random": with torch._inductor.config.fallback_random = True (set
here so that dropout draws eager's numbers) AOTAutograd's partitioner still wraps a dropout that
torch.utils.checkpoint recomputes in run_and_save_rng_state (forward) and run_with_rng_state
(backward), both in Inductor's FORBIDDEN_CUDAGRAPH_OPS. A transformer-style MLP block, its
inner function checkpointed, trained with mode="reduce-overhead": torch logs "skipping cudagraphs
due to disabling cudagraphs due to incompatible op run_and_save_rng_state" (and the backward's
run_with_rng_state) and the whole step runs without CUDA graphs. The program exits 0.

Why it should reproduce on torch 2.11: by design. functionalize_rng_ops in
torch/_functorch/partitioners.py takes the graph-safe path only when not
inductor.config.fallback_random ("this changes numerics, so if fallback_random is set we will
not use it", since #146878, before 2.11), and the two HOPs are in the forbidden list; both are
unchanged in the 2.13 wheel. Graph partitioning is pinned off (with it on the ops would be split
out instead of skipping the graph). A CPU run on torch 2.13 (cuda replaced by cpu) shows the
forward graph's run_and_save_rng_state(aten.native_dropout) node, with no stack trace of its
own; the getitem that carries its result has the stack trace of the dropout line (38). One graph,
no graph break."""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch._inductor.config.fallback_random = True  # dropout masks as eager draws them
torch._inductor.config.graph_partition = False  # the whole-graph decision: skipped, not split
torch.set_float32_matmul_precision("high")


class MLPBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)
        self.drop = nn.Dropout(0.1)

    def inner(self, x):
        h = torch.nn.functional.gelu(self.up(x))
        h = self.drop(h)
        return self.down(h)

    def forward(self, x):
        return x + checkpoint(self.inner, x, use_reentrant=False)


torch.manual_seed(0)
model = MLPBlock(256).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
step = torch.compile(model, mode="reduce-overhead")
for _ in range(5):
    x = torch.randn(64, 256, device="cuda")
    loss = step(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print(loss.item())
