"""A wrong gradient from a decomposition: relu's backward (aten.threshold_backward) decomposed
to twice the gradient; the forward is right and the program exits 0. Under `compdiag run
--check-accuracy` the gradient check finds it; `compdiag bisect RUN` blames
aot_eager_decomp_partition / decomposition (aten.threshold_backward)."""
from contextlib import contextmanager

import torch
import torch._inductor.compile_fx

aten = torch.ops.aten


def bad_threshold_backward(grad_output, self, threshold):
    return torch.where(self <= threshold, 0.0, grad_output * 2)


@contextmanager
def patch_decomp():
    old = torch._inductor.compile_fx.select_decomp_table

    def get_decomp():
        out = old().copy()
        out[aten.threshold_backward.default] = bad_threshold_backward
        return out

    torch._inductor.compile_fx.select_decomp_table = get_decomp
    try:
        yield
    finally:
        torch._inductor.compile_fx.select_decomp_table = old


def step(x, w):
    return (torch.relu(x * w) + 1).sum()


x = torch.randn(4, 8)
w = torch.randn(4, 8, requires_grad=True)
with patch_decomp():
    torch.compile(step)(x, w).backward()
print("grad norm", w.grad.norm().item())
