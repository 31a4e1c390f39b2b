"""pytorch/pytorch PR #149751 ("[AOTAutogradCache] Allow Custom Autograd functions behind a flag")
and facebookresearch/fairchem#2162 ("Let AOTAutogradCache cache graphs with custom
autograd.Functions"): AOTAutogradCache refuses any graph with a custom autograd.Function unless
autograd_cache_allow_custom_autograd_functions is set, so a compile after torch._dynamo.reset()
is retraced instead of served from the cache (counted below)."""
import torch
from torch._dynamo.utils import counters


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def step(x):
    return Scale.apply(x).sin().sum()


x = torch.randn(8, requires_grad=True)
torch.compile(step)(x).backward()
torch._dynamo.reset()
torch.compile(step)(x).backward()
print("aot_autograd:", dict(counters["aot_autograd"]))
