"""triton-lang/triton#4921 ("Return `num_warmups`, `num_reps` and `use_cuda_graph` fields of
`Autotuner`", motivated by PyTorch's use of them) and triton-lang/triton#4496 (the PR that
deprecated `warmup=`/`rep=`): a user-defined Triton kernel with `@triton.autotune(...,
warmup=..., rep=...)` called from a compiled function.

Dynamo's TritonHOPifier (torch/_higher_order_ops/triton_kernel_wrap.py) accepts an Autotuner
only when num_warmups/num_reps/use_cuda_graph are at their defaults; here they are not, so the
launch line is a graph break: "Only configs, keys, restore_value, and reset_to_zero are
supported for triton.autotune". The kernel runs in eager between two graphs (the matmul before
it, the reduction after it). The fix is to drop warmup/rep (deprecated in Triton since 3.1) or
set torch._inductor.config.unsafe_ignore_unsupported_triton_autotune_args.
"""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 256}, num_warps=4),
        triton.Config({"BLOCK": 1024}, num_warps=8),
    ],
    key=["n"],
    warmup=5,
    rep=20,
)
@triton.jit
def quick_gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * tl.sigmoid(1.702 * x), mask=mask)


@torch.compile
def mlp_score(x, w):
    h = x @ w
    out = torch.empty_like(h)
    n = h.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    quick_gelu_kernel[grid](h, out, n)
    return out.sum(dim=-1)


torch.manual_seed(0)
w = torch.randn(64, 128, device="cuda")
for _ in range(3):
    x = torch.randn(32, 64, device="cuda")
    s = mlp_score(x, w)
    ref = torch.nn.functional.silu(1.702 * (x @ w)).div(1.702).sum(dim=-1)
print("max abs diff vs eager", (s - ref).abs().max().item())
