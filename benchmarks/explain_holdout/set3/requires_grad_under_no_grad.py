"""pytorch/pytorch#131975 ("torch.compile should not recompiles when `.requires_grad=True`
under `torch.no_grad()` context", https://github.com/pytorch/pytorch/issues/131975): inside
torch.no_grad(), flipping an input's requires_grad still recompiles the function ("tensor
'L['a']' requires_grad mismatch. expected requires_grad=0"), though under no_grad it changes
nothing."""
import torch


@torch.compile()
def f(a, b):
    return (a + b).clip(0)


a = torch.randn(64, 64)
b = torch.randn(64, 64)

with torch.no_grad():
    f(a, b)
    a.requires_grad_(True)
    f(a, b)
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
