"""pytorch/pytorch#149911 ("[dynamo] `torch.compile` doesn't respect `GradTrackingTensor`'s data
attribute mutation check", https://github.com/pytorch/pytorch/issues/149911, open, 2025-03):
writing `.data` of a tensor inside a torch.func transform is an error in eager ("mutating
directly with `.data` inside functorch transform is not allowed"); Dynamo traces the write as
a plain attribute mutation of a new tensor and the compiled `grad(...)` returns a gradient
without the check. Here a loss snaps its weight onto a clipped anchor through `.data` before
measuring it, and is differentiated with torch.func.grad under torch.compile (backend="eager",
as while debugging; Inductor and aot_eager still raise like eager on torch 2.13)."""
import torch
from torch.func import grad

torch.manual_seed(0)
anchor = torch.randn(3, 3)
target = torch.randn(3, 3)


def loss(w):
    w.data = anchor.clamp(-0.5, 0.5)
    return ((w - target) ** 2).sum()


step = torch.compile(grad(loss), backend="eager")
w = torch.randn(3, 3)
g = step(w)
print("grad", g.shape, round(g.sum().item(), 4))
