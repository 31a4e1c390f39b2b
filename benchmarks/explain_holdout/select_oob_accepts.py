"""pytorch/pytorch#183769: "torch.compile skips out-of-range check for torch.select and returns
invalid values". Eager raises IndexError for the second select (index 1 of a size-1 dim); the
compiled function returns a tensor whose second half is garbage."""
import torch


def f(x):
    base = x.unsqueeze(1)
    a = torch.select(base, dim=1, index=0)
    b = torch.select(base, dim=1, index=1)
    return torch.cat([a, b], dim=-1)


x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
out = torch.compile(f, backend="inductor", fullgraph=True)(x)
print("compiled:", out.shape)
