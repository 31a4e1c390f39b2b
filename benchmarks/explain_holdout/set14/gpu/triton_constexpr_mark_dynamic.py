"""pytorch/pytorch#136504 ("tl.constexpr inputs to user-defined triton kernels should not be
dynamic", closed by PR #136512; follow-ups #136686, #137024): a dynamic size passed to a user
Triton kernel's `tl.constexpr` parameter is specialized to its value during Dynamo's trace (the
kernel must be recompiled for each value anyway). Here the length is marked dynamic with
mark_dynamic and passed as `NUMEL: tl.constexpr` (the issue's own kernel), so the compile fails:
"Constraints violated ... You marked L['x'].size()[0] as dynamic but your code specialized it to
be a constant (517)", the specialization made by the kernel launch. Should reproduce on torch
2.11: the specialization is by design since #136512 (Sept 2024, torch 2.6; the 2.13 wheel's
triton_kernel_wrap.py "[Note: Specialize tl.constexpr args in user-defined triton kernels]"),
and mark_dynamic has hard-failed on a specialized dimension since 2025 (symbolic_shapes
produce_guards)."""
import torch
import triton
import triton.language as tl


@triton.jit
def square_kernel(x_ptr, y_ptr, NUMEL: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = BLOCK_SIZE * pid + tl.arange(0, BLOCK_SIZE)
    mask = offsets < NUMEL
    data = tl.load(x_ptr + offsets, mask)
    tl.store(y_ptr + offsets, data * data, mask)


def square(x):
    y = torch.empty_like(x)
    numel = x.numel()
    grid = (triton.cdiv(numel, 256),)
    square_kernel[grid](x, y, numel, BLOCK_SIZE=256)
    return y


compiled = torch.compile(square)
for n in (517, 775, 1029):
    x = torch.randn(n, device="cuda")
    torch._dynamo.mark_dynamic(x, 0)
    out = compiled(x)
    torch.cuda.synchronize()
    print(n, torch.allclose(out, x * x))
