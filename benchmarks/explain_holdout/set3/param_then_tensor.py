"""pytorch/pytorch#165051 (fixed in its wording by #185083, "Clarify tensor type mismatch guard
messages", https://github.com/pytorch/pytorch/pull/185083) and #135011: a function compiled on an
nn.Parameter recompiles when called with a plain Tensor of the same metadata; Dynamo's tensor
guard checks the exact Python type (kept by decision; #165224, which relaxed it, was closed)."""
import torch


@torch.compile(backend="eager", dynamic=True)
def scale(x):
    return x * 2


p = torch.nn.Parameter(torch.randn(1, 1))
scale(p)
t = torch.randn(1, 1, requires_grad=True)
scale(t)
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
