"""A decomposition that returns NaN: CompilerBisector blames aot_eager_decomp_partition /
decomposition (aten.exponential)."""
import sys
from contextlib import contextmanager

import torch
import torch._inductor.compile_fx

aten = torch.ops.aten


def bad_exp_decomp(self, rate=1.0, generator=None):
    return torch.rand_like(self) * float("nan")


@contextmanager
def patch_exp_decomp():
    old = torch._inductor.compile_fx.select_decomp_table

    def get_decomp():
        out = old().copy()
        out[aten.exponential.default] = bad_exp_decomp
        return out

    torch._inductor.compile_fx.select_decomp_table = get_decomp
    try:
        yield
    finally:
        torch._inductor.compile_fx.select_decomp_table = old


def vq(x):
    return (x + 3).exponential_() * 10.5


with patch_exp_decomp():
    out = torch.compile(vq)(torch.randn(4, 40, 25))
sys.exit(1 if out.isnan().any() else 0)
