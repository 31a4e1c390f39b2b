"""pytorch/pytorch#139059 ("Triton pre_hooks are ignored by torch.compile",
https://github.com/pytorch/pytorch/issues/139059, high priority, module: user triton): a
user-defined Triton kernel under @triton.autotune whose only triton.Config carries a pre_hook
that zeroes the output before the kernel atomically adds into it. Compiled, the hook was
skipped and the sum came out 3 instead of 2. Torch's answer (PRs #140982/#141040, Nov 2024):
Dynamo refuses such a kernel, "pre_hook and post_hook are not supported in triton.Autotune or
triton.Config", a graph break at the kernel launch; the launch then runs eagerly, the hook runs
and the result is right. Should reproduce on torch 2.11 / triton 3.6: the check has been in
triton_kernel_wrap.py since 2024 (still so in 2.13: a runtime pre_hook cannot be traced), and
triton.Config still takes pre_hook. The issue's script, the output initialised with ones."""
import torch
import triton
import triton.language as tl


def init_to_zero(name):
    return lambda nargs: nargs[name].zero_()


@triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 1024}, num_warps=4, num_stages=2,
                                        pre_hook=init_to_zero("output_ptr"))],
                 key=["n_elements"])
@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.atomic_add(output_ptr + offsets, x + y, mask=mask)


def add(x, y):
    output = torch.ones_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    add_kernel[grid](x, y, output, n_elements)
    return output


x = torch.ones(4096, device="cuda")
y = torch.ones(4096, device="cuda")
out = torch.compile(add)(x, y)
print("compiled:", out[:4].tolist(), "(2.0 when the pre_hook ran)")
