"""Failure (inductor_lowering): a lowering that raises, patched in the way torch's own tests
inject faults, so the error comes out of Inductor's real lowering pass."""
import torch
from torch._inductor import lowering

aten = torch.ops.aten


def broken_lowering(*args, **kwargs):
    raise RuntimeError("broken lowering for log1p (injected)")


lowering.lowerings[aten.log1p.default] = broken_lowering


def block(x):
    y = x.abs() * 2
    z = torch.log1p(y)  # <- diagnosis
    return z.sum()


torch.compile(block)(torch.randn(16))
print("ok")
