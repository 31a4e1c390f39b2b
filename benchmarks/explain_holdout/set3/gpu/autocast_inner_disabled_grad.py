"""pytorch/pytorch#179804 ("torch.compile + aot_eager: backward ignores inner
autocast(enabled=False) vs eager", https://github.com/pytorch/pytorch/issues/179804): the
forward runs under an outer bfloat16 autocast with the matmul forced to float32 by an inner
autocast(enabled=False); eager's weight gradient and the compiled one differ (torch.equal is
False), though the backward runs outside autocast in both."""
import torch
import torch.nn as nn

w = nn.Linear(64, 64, device="cuda")
h = torch.randn(4, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)


def inner_fn(x):
    with torch.amp.autocast("cuda", enabled=False):
        return x.float() @ w.weight.float().T


def outer_fn(x, compile=False):
    if compile:
        return torch.compile(inner_fn, backend="aot_eager")(x)
    return inner_fn(x)


with torch.amp.autocast("cuda", dtype=torch.bfloat16):
    out_eager = outer_fn(h)
with torch.amp.autocast("cuda", dtype=torch.bfloat16):
    out_compiled = outer_fn(h, compile=True)

out_eager.sum().backward()
grad_eager = w.weight.grad.clone()

w.weight.grad = None
out_compiled.sum().backward()
grad_compiled = w.weight.grad.clone()

assert torch.equal(grad_eager, grad_compiled)  # fails
