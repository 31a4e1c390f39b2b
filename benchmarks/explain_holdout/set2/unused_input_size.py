"""pytorch/pytorch#131893 ("Static shape guards are put on tensors even if they never actually
get used", https://github.com/pytorch/pytorch/issues/131893): `y` is never used, yet the second
call recompiles on its size (`tensor 'L['y']' size mismatch at index 0. expected 4, actual 6`)."""
import torch


@torch.compile(fullgraph=True, backend="eager")
def f(x, y):
    z = y
    return x * 2


f(torch.randn(3), torch.randn(4))
f(torch.randn(3), torch.randn(6))
