"""pytorch/pytorch#186893 ("Fix dynamic size-one tensor recompiles"): with dynamic=True a first
call with batch size 1 still specialises the size to 1 (0/1 specialisation), so the call with
batch size 2 recompiles although the user asked for dynamic shapes."""
import torch


@torch.compile(dynamic=True, backend="eager")
def step(x):
    return (x * 2).sum(0)


step(torch.randn(1, 8))
step(torch.randn(2, 8))
step(torch.randn(3, 8))
