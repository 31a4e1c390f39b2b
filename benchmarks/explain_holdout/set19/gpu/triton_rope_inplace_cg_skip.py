"""flashinfer-ai/flashinfer#403 ("apply_rope_inplace will cause graphbreak due to mutated
inputs", open: an in-place RoPE kernel under mode="reduce-overhead" prints "skipping cudagraphs
due to mutated inputs (2 instances)"), with the in-place rotary kernel written as a
user-defined Triton kernel called straight from the compiled function.

Dynamo wraps the launch in triton_kernel_wrapper_mutation; torch's TTIR analysis
(identify_mutated_tensors) sees the stores into q_ptr and k_ptr, functionalization turns them
into copies back into the inputs q and k, and Inductor's CUDA-graph check refuses a graph that
mutates non-static inputs: "skipping cudagraphs due to mutated inputs (2 instances). Found from
: ... line 38 ...". The step runs without CUDA graphs every call. The fix is an out-of-place
kernel (write new q/k tensors) or q/k held in static buffers the graph owns.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def rope_inplace_kernel(q_ptr, k_ptr, cos_ptr, sin_ptr, HALF: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, HALF)
    c = tl.load(cos_ptr + offs)
    s = tl.load(sin_ptr + offs)
    base = row * 2 * HALF
    q1 = tl.load(q_ptr + base + offs)
    q2 = tl.load(q_ptr + base + HALF + offs)
    tl.store(q_ptr + base + offs, q1 * c - q2 * s)
    tl.store(q_ptr + base + HALF + offs, q2 * c + q1 * s)
    k1 = tl.load(k_ptr + base + offs)
    k2 = tl.load(k_ptr + base + HALF + offs)
    tl.store(k_ptr + base + offs, k1 * c - k2 * s)
    tl.store(k_ptr + base + HALF + offs, k2 * c + k1 * s)


@torch.compile(mode="reduce-overhead")
def attend(q, k, v, cos, sin):
    rows = q.numel() // q.shape[-1]
    rope_inplace_kernel[(rows,)](q, k, cos, sin, HALF=q.shape[-1] // 2)
    scores = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
    return scores.softmax(dim=-1) @ v


torch.manual_seed(0)
head_dim = 64
freqs = torch.arange(head_dim // 2, device="cuda") / (head_dim // 2)
cos, sin = torch.cos(freqs), torch.sin(freqs)
with torch.no_grad():
    for step in range(4):
        q = torch.randn(2, 4, 16, head_dim, device="cuda")
        k = torch.randn(2, 4, 16, head_dim, device="cuda")
        v = torch.randn(2, 4, 16, head_dim, device="cuda")
        out = attend(q, k, v, cos, sin)
print("out", out.shape, round(out.float().abs().mean().item(), 4))
