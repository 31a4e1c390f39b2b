"""pytorch/pytorch#149743 ("dynamic annotations that still allow duck sizing",
https://github.com/pytorch/pytorch/issues/149743): compiled with dynamic=True, a square input gets
one symbol for both dims (duck sizing); marking the same tensor's dims dynamic gives them one
symbol each, and the call recompiles although the shapes did not change."""
import torch

x = torch.randn(10, 10)


@torch.compile(backend="eager", dynamic=True)
def fn(x):
    return x + 1


fn(x)
torch._dynamo.mark_dynamic(x, [0, 1])
fn(x)
