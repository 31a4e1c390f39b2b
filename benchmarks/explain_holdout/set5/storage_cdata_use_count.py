"""pytorch/pytorch PR #192267 ("[dynamo] Graph-break on UntypedStorage._cdata to avoid reading
freed memory", https://github.com/pytorch/pytorch/pull/192267, newer than torch 2.13): when a
tensor is created inside a compiled region and only `.untyped_storage()._cdata` is used
afterwards, Dynamo graph-breaks at the call that consumes the raw pointer and its liveness
analysis frees the tensor first, so `torch._C._storage_Use_Count(a.untyped_storage()._cdata)`
reads freed memory and silently returns garbage. On torch 2.13 the plain run counts one graph
break ("Failed to convert args/kwargs to proxy ... UntypedStorageVariable ... _cdata"), returns a
use count of 3496101919 where eager gives 2, and ends in the user's own assert."""
import torch


def f(x):
    a = x + 1
    return torch._C._storage_Use_Count(a.untyped_storage()._cdata)


x = torch.randn(4)
eager = f(x)
compiled = torch.compile(f, backend="eager")(x)
print("eager", eager, "compiled", compiled)
from torch._dynamo.utils import counters
print("graph_break", dict(counters["graph_break"]))
assert compiled == eager, f"use count {compiled} != {eager}"
