"""pytorch/pytorch#149635 ("avoid guarding on max() unnecessarily",
https://github.com/pytorch/pytorch/issues/149635): `max(x.shape[0], 16)` guards the dynamic size
against 16, so a length above 16 recompiles although the size was marked dynamic."""
import torch


@torch.compile(backend="eager")
def f(x):
    padded_size = max(x.shape[0], 16)
    padded_tensor = torch.ones(padded_size, *x.shape[1:])
    return padded_tensor + x.sum()


x = torch.arange(15)
torch._dynamo.mark_dynamic(x, 0)
out = f(x)
x = torch.arange(17)
torch._dynamo.mark_dynamic(x, 0)
out = f(x)
