"""pytorch/pytorch#138215 ("Dynamo x autograd.Function: leverage compiled autograd on graph break in
backwards", https://github.com/pytorch/pytorch/issues/138215, open): when Dynamo can trace an
autograd.Function's forward but not its backward (here a `.item()` that clips the gradient), it
graph-breaks on the forward (`.apply`), so the Function runs in eager between two compiled
pieces. On torch 2.13 the plain run counts one graph break, "Unsupported Tensor.item() call with
capture_scalar_outputs=False", whose user stack ends at the `.item()` line in backward."""
import torch


class ClipGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        limit = grad.abs().max().item()
        if limit > 1.0:
            grad = grad / limit
        return grad * x.cos()


@torch.compile
def f(x):
    y = x * 2
    z = ClipGrad.apply(y)
    return z.sum() + y.mean()


x = torch.randn(8, requires_grad=True)
f(x).backward()
print(x.grad[:3])
from torch._dynamo.utils import counters
print("graph_break", dict(counters["graph_break"]))
