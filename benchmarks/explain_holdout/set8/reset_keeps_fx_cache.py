"""pytorch/pytorch#172024 ("`torch.compiler.reset` doesn't clear all caches",
https://github.com/pytorch/pytorch/issues/172024, open): torch.compiler.reset() is documented to
clear all compilation caches and restore the initial state, but it clears only Dynamo's: the
compile after the reset is served from Inductor's on-disk FX graph cache, so a user who resets to
force a fresh compile does not get one. The script compiles, resets, compiles the same function
again and prints the FX graph cache's hit count."""
import torch
from torch._dynamo.utils import counters


def f(x):
    return torch.sin(x) * 2 + x


x = torch.randn(64)
torch.compile(f)(x)
torch.compiler.reset()
torch.compile(f)(x)
print("fxgraph cache hits after reset:", counters["inductor"]["fxgraph_cache_hit"])
