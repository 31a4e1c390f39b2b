"""pytorch/pytorch PR #162696 ("[CUDAGraph][UX] warn many times for rerecording from dynamic
shapes", Sept 2025): "Excessive re-recording CUDAGraphs lead to bad performance ... users may
not see the warning message when there are many other logs", reported from the transformers
library; and the MoE side of it, pytorch/torchtitan#1364 (expert token counts vary per step,
so the expert computation has dynamic shapes). A mixture-of-experts layer routes each token to
one of 4 experts; the experts' FFN is one function compiled with mode="reduce-overhead" and
called once per expert on that expert's tokens. No input size is chosen by the user, yet every
call brings the router's token count: after the first recompile (automatic dynamic) CUDA-graph
trees record a new graph for every distinct count, and past cudagraph_dynamic_shape_warn_limit
(8) torch warns "CUDAGraph supports dynamic shapes by recording a new graph for each distinct
input size ... We have observed 9 distinct sizes". The program exits 0.

Why it should reproduce on torch 2.11: by design. cudagraph_trees keys its recordings on the
SymInt inputs (cudagraphify_impl's fn_cache, since 2023), and the warning with its limit of 8 is
#131387 (2024) as lowered by #162696 (in 2.10); both are unchanged in the 2.13 wheel. The routing
is drawn from a seeded CPU generator, so the counts are the same on every machine: a CPU run on
torch 2.13 (cuda replaced by cpu) compiles twice (the second time with a dynamic token count) and
makes 32 expert calls with 18 distinct counts from 15 to 34, none 0 or 1 (which would
specialize)."""
import torch

torch.set_float32_matmul_precision("high")
E, T, D, H = 4, 96, 64, 256


def expert_ffn(h, w_in, w_out):
    return torch.nn.functional.gelu(h @ w_in) @ w_out


ffn = torch.compile(expert_ffn, mode="reduce-overhead")
g = torch.Generator().manual_seed(0)
w_in = (torch.randn(E, D, H, generator=g) * 0.05).cuda()
w_out = (torch.randn(E, H, D, generator=g) * 0.05).cuda()
with torch.no_grad():
    for step in range(8):
        x = torch.randn(T, D, generator=g).cuda()
        expert_of = torch.randint(0, E, (T,), generator=g).cuda()  # a top-1 router's choice
        y = torch.zeros_like(x)
        for e in range(E):
            idx = (expert_of == e).nonzero().squeeze(-1)
            y[idx] = ffn(x[idx], w_in[e], w_out[e])
torch.cuda.synchronize()
print(y.norm().item())
