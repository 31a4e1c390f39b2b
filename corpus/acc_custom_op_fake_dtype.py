"""Accuracy (a custom op's fake says another dtype than its kernel returns): a quantiser written
with NumPy and wrapped as a custom op; its scale is a NumPy float64, so the arithmetic (and
the kernel's output) is float64, while its register_fake says
`empty_like(x)`, float32. Eager is right (the next op promotes the real tensor); the compiled
graph reads the kernel's float64 output as float32: silently wrong numbers, after the op.
Not a compiler bug: the fake is the fix.

The class of benchmarks/probes27's cop_fake_dtype (the lead's run called it "computed wrongly
by smooth.default, fused into add" and sent the user to bisect).

    compdiag run --check-accuracy corpus/acc_custom_op_fake_dtype.py && compdiag explain
"""
import numpy as np
import torch

SCALE = np.float64(16.0)


@torch.library.custom_op("corpus::quantize", mutates_args=())
def quantize(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.round(x.numpy() * SCALE) / SCALE)  # float64


@quantize.register_fake
def _(x):
    return torch.empty_like(x)


@torch.compile
def block(x, w):
    q = quantize(torch.tanh(x @ w))  # <- diagnosis
    return (q * 2 + x).sum(dim=1)


torch.manual_seed(0)
print(block(torch.randn(8, 16), torch.randn(16, 16)))
