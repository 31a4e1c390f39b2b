"""pytorch/pytorch#117265 ("torch.compile silently incorrect with full_backward_pre_hook",
https://github.com/pytorch/pytorch/issues/117265): a backward pre-hook that doubles the
gradient is registered after the first compiled call; the compiled function keeps its old graph
and x.grad is ones where eager gives twos."""
import torch
import torch.nn as nn

layer = nn.Linear(3, 3, bias=False)
layer.weight = nn.Parameter(torch.eye(3, dtype=torch.float))


def hook(module, grad_output):
    return tuple(go * 2 for go in grad_output)


@torch.compile(backend="aot_eager", fullgraph=True)
def f(x):
    y = layer(x)
    return y


x = torch.randn(3, requires_grad=True)
f(x)
layer.register_full_backward_pre_hook(hook)

x = torch.randn(3, requires_grad=True)
y = f(x)
y.sum().backward()
print(x.grad)
torch.testing.assert_close(x.grad, torch.full((3,), 2.0))
