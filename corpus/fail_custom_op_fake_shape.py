# after pytorch/pytorch#143579 (`assert_size_stride` failing with a custom op) and #149732
"""Failure (runtime) below the output module: a custom op whose fake (meta) implementation
returns the wrong shape. Inductor trusts the fake kernel, so the generated code checks the real
output with `assert_size_stride(buf, (4, 8), ...)` right after calling the op, and the real
kernel returned (8, 4): "AssertionError: expected size 8==4 ... This error most often comes
from an incorrect fake (aka meta) kernel for a custom op". The line is the user's call of the
op inside the compiled function (its FX node's stack), not the call of the function."""
import torch


@torch.library.custom_op("corpus::pair_swap", mutates_args=())
def pair_swap(x: torch.Tensor) -> torch.Tensor:
    return x.t().contiguous()


@pair_swap.register_fake
def _(x):
    return torch.empty_like(x)  # wrong: the real kernel transposes


@torch.compile
def step(x):
    y = pair_swap(x * 2)  # <- diagnosis
    return y + 1


print(step(torch.randn(4, 8)).shape)
