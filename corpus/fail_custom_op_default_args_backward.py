"""Failure (aot): pytorch/pytorch#162687 (probes45g cop_default_args_backward). A custom op
whose schema has default values is called with values equal to them; torch traces the call
without those arguments, so the gradients `register_autograd`'s backward returns (one per
declared argument) no longer match the traced call's inputs: "Expected the return from
backward to be of the same structure as the inputs". Declare no defaults, pass every argument."""
from typing import Optional

import torch


@torch.library.custom_op("corpus::shift", mutates_args=())
def shift(x: torch.Tensor, by: Optional[float] = None, flip: bool = False) -> list[torch.Tensor]:
    y = x + (by or 0.0)
    return [-y if flip else y]


@shift.register_fake
def _(x, by=None, flip=False):
    return [torch.empty_like(x)]


def _setup(ctx, inputs, output):
    ctx.flip = inputs[2]


def _backward(ctx, grads):
    return (-grads[0] if ctx.flip else grads[0]), None, None


shift.register_autograd(_backward, setup_context=_setup)


def f(x):
    return shift(x.sin(), None, False)[0].sum()  # <- diagnosis


x = torch.randn(8, requires_grad=True)
torch.compile(f, fullgraph=True)(x).backward()
print(x.grad.sum().item())
