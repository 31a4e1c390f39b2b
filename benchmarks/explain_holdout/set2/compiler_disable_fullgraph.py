"""pytorch/pytorch#167927 ("torch.compile(fullgraph=True) should accept torch.compiler.disable",
https://github.com/pytorch/pytorch/issues/167927): a call to a torch.compiler.disable'd function
inside a fullgraph=True compile raises `Unsupported: Skip calling torch.compiler.disable()d
function` instead of running it eagerly."""
import torch


@torch.compiler.disable
def log_stats(t):
    return t.mean().item()


@torch.compile(fullgraph=True, backend="eager")
def f(x):
    y = x * 2
    log_stats(y)
    return y + 1


f(torch.randn(4))
