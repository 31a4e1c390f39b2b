"""pytorch/pytorch PR #161862, relanded as #163220 ("[CUDAGraph] add config to error on skipping
cudagraph", https://github.com/pytorch/pytorch/pull/163220, September 2025): "Many users want a
config to force all cuda ops captured by cudagraph. When not possible, pt2 should error. This PR
adds torch._inductor.triton.cudagraph_or_error". A user who asked for that hard failure compiles
a reduce-overhead step that reads a count back with .item() (captured, as capture_scalar_outputs
allows). The .item() becomes aten._local_scalar_dense, whose unbacked result no CUDA graph can
replay, so Inductor's skip ("disabling cudagraphs due to incompatible op
aten._local_scalar_dense.default Found from ...", naming the .item() line) is raised as a
RuntimeError instead of logged, and the first call fails (issue 29 section 1: the line torch
points at on CUDA, a CUDA-graph skip reason; here the skip ends the program).

Why it should still reproduce on torch 2.11: cudagraph_or_error is in every release since 2.10
(PR #163220); log_cudagraph_skip_and_bump_counter raises RuntimeError(msg) under it, and the
incompatible-op check (get_first_incompatible_cudagraph_node: any node whose value has unbacked
symbols) is older and unchanged in the torch 2.13 wheel. Graph partitioning is set off, as in
set10's cg_cond_skip: with partitioning (the default outside fbcode in recent releases) the op
would be split out instead, and that path did not raise until PR #193044 (August 2026)."""
import torch
import torch._dynamo
import torch._inductor.config as inductor_config

torch._dynamo.config.capture_scalar_outputs = True
inductor_config.graph_partition = False
inductor_config.triton.cudagraph_or_error = True  # "force all cuda ops captured by cudagraph"


def scale_by_positives(x):
    k = (x > 0).sum().item()
    return x * k + 1


step = torch.compile(scale_by_positives, mode="reduce-overhead")
x = torch.randn(1024, device="cuda")
for _ in range(3):
    out = step(x)
torch.cuda.synchronize()
print(out.sum().item())
