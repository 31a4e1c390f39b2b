"""pytorch/pytorch#149318 ("BypassFxGraphCache should have better error message for HOPs (also we
should support more)", https://github.com/pytorch/pytorch/issues/149318, open): a graph holding a
higher-order operator the caches cannot serialize is never cached ("Can't cache
HigherOrderOperators"); here torch.cond, so the compile after torch._dynamo.reset() is not served
from the cache. The plain run on torch 2.13 counts fxgraph_cache_bypass 2 and
autograd_cache_bypass 2."""
import torch
from torch._dynamo.utils import counters


def f(x):
    y = torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))
    return y * 2


x = torch.randn(8)
torch.compile(f)(x)
torch._dynamo.reset()
torch.compile(f)(x)
print({k: v for k, v in counters["inductor"].items() if "cache" in k},
      {k: v for k, v in counters["aot_autograd"].items() if "cache" in k})
