"""pytorch/pytorch PR #176720 ("[decomp][wip] Fix linspace decomposition precision for fp16/bf16",
https://github.com/pytorch/pytorch/pull/176720, closed without landing): the linspace
decomposition computes its step in float64 while the native CPU and CUDA kernels compute it in
the target dtype, so for float16/bfloat16 "this causes visible numerical mismatches when code
using linspace is compiled through inductor vs run eagerly". On torch 2.13 the plain run differs
in 480 of 1000 bfloat16 values (92 beyond assert_close's tolerance, max abs 0.031) and ends in
the user's own assert_close."""
import torch


def f(start, end):
    return torch.linspace(start, end, steps=1000, dtype=torch.bfloat16)


eager = f(-3.3, 7.7)
compiled = torch.compile(f)(-3.3, 7.7)
diff = (eager.float() - compiled.float()).abs()
print("mismatched", int((diff > 0).sum()), "of", diff.numel(), "max", diff.max().item())
torch.testing.assert_close(compiled, eager)
