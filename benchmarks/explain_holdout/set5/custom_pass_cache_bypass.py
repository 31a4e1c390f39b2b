"""pytorch/pytorch#130772 (cited in Inductor's cache check: "TODO:
https://github.com/pytorch/pytorch/issues/130772") and PR #137298 ("[inductor] Add API to make
post_grad_custom passes cache-able", https://github.com/pytorch/pytorch/pull/137298): a
post-grad custom pass set as a plain function (not a CustomGraphPass with a uuid()) makes the FX
graph cache bypass every compile ("Unsupported post grad custom pass"), so the compile after
torch._dynamo.reset() is not served from the cache; the plain run on torch 2.13 counts
fxgraph_cache_bypass 2."""
import torch
from torch._dynamo.utils import counters


def my_post_grad_pass(graph):
    return None


torch._inductor.config.post_grad_custom_post_pass = my_post_grad_pass


def f(x):
    return torch.sin(x) * 2


x = torch.randn(8)
torch.compile(f)(x)
torch._dynamo.reset()
torch.compile(f)(x)
print({k: v for k, v in counters["inductor"].items() if "cache" in k})
