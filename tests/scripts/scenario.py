"""A graph break, a recompile and C++ kernels, in one small program.

f breaks its graph at print() (two graphs, each with a fused C++ kernel); g is called with
a second shape, so Dynamo recompiles it (guard on x.size()[0])."""
import torch


def f(x):
    y = torch.cos(x) * 2
    print("graph break here")
    return torch.sin(y) + 1


def g(x):
    return x * 3


torch.compile(f)(torch.randn(8))
g_compiled = torch.compile(g, backend="eager")
g_compiled(torch.randn(4))
g_compiled(torch.randn(6))
print("scenario done")
