"""pytorch/pytorch#144344 ("custom_op's backward changes can't invalidate `torch.compile` cache for
backward", open): a torch.library custom op's autograd formula is not part of what the compile
caches key on. Here a notebook trains with a straight-through rounding op, switches its backward
to a scaled one for a second experiment, calls torch._dynamo.reset() to get a fresh compile and
checks the compiled gradient against eager: the compile after the reset is served the first
experiment's backward from the cache, and the check fails."""
import torch
from torch import Tensor


@torch.library.custom_op("set14::ste_round", mutates_args=())
def ste_round(x: Tensor) -> Tensor:
    return torch.round(x)


@ste_round.register_fake
def _(x):
    return torch.empty_like(x)


def identity_backward(ctx, grad):
    return grad


def scaled_backward(ctx, grad):
    return 0.5 * grad


def loss_fn(w, x):
    return (torch.ops.set14.ste_round(w * x) ** 2).sum()


w = torch.tensor([0.3, -1.2, 2.7], requires_grad=True)
x = torch.tensor([1.5, 2.0, -0.5])

ste_round.register_autograd(identity_backward)
torch.compile(loss_fn)(w, x).backward()
print("experiment 1 grad:", w.grad)

ste_round.register_autograd(scaled_backward)
torch._dynamo.reset()
w.grad = None
loss_fn(w, x).backward()
eager_grad = w.grad.clone()
w.grad = None
torch.compile(loss_fn)(w, x).backward()
print("experiment 2 grad: eager", eager_grad, "compiled", w.grad)
torch.testing.assert_close(w.grad, eager_grad)
