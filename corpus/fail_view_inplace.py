"""Failure (runtime): an in-place op on a compiled output that AOTAutograd returns as a view.
After pytorch/pytorch#90507: functionalization turns `out.unsqueeze_(0)` into a view of the
output, and autograd forbids modifying a CompiledFunction's view output in place."""
import torch


def f(x):
    out = x * 2
    out.unsqueeze_(0)
    return out


y = torch.compile(f, backend="aot_eager")(torch.ones(2, requires_grad=True))
y.mul_(2)  # <- diagnosis
print("ok")
