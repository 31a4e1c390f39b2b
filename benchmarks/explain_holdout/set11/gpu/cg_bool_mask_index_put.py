"""pytorch/pytorch#169951, as fixed by PR #170103 ("[inductor] Fix cudagraph skip for index_put_
with boolean indices, graph partitioning logic", https://github.com/pytorch/pytorch/pull/170103,
cherry-picked to release 2.10 as #170884): a boolean-mask assignment `out[mask] = fill` with a
value of more than one element becomes aten.index_put_ with a bool index, which Inductor runs as
the ATen fallback; that kernel calls nonzero(), which cannot be captured in a CUDA graph. Since
the PR, reduce-overhead without graph partitioning skips CUDA graphs for the whole graph:
"skipping cudagraphs due to index_put_ fallback with boolean indexing is not compatible with
CUDA graphs. Found from" the assignment's line (or, by the incompatible-op check, "incompatible
op aten.index_put_.default Found from" the same line). Should reproduce on torch 2.11: the check
is in 2.10 (the cherry-pick) and unchanged in 2.13's lowering.py; graph_partition is set off, as
partitioning (the default outside fbcode in recent releases) would split around the op instead.
A plain CPU run (torch 2.13) traces it in one graph with index_put_(mul, [mask], fill)."""
import torch

torch._inductor.config.graph_partition = False  # the whole-graph decision: skipped, not split


def scatter_rows(h, mask, fill):
    out = h * 2
    out[mask] = fill
    return out.sum(dim=-1)


f = torch.compile(scatter_rows, mode="reduce-overhead", fullgraph=True)
h = torch.randn(64, 8, device="cuda")
mask = torch.rand(64, device="cuda") > 0.5
fill = torch.arange(8, dtype=torch.float32, device="cuda")
for _ in range(3):
    r = f(h, mask, fill)
torch.cuda.synchronize()
print(torch.allclose(r, scatter_rows(h, mask, fill)))
