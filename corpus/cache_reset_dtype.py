# after pytorch/pytorch#111421 ("[inductor] FX graph cache: Add support for symbolic shapes": its tests reset Dynamo and count fxgraph_cache_miss/hit)
"""Cache: after torch._dynamo.reset() a notebook calls the same compiled function on float64
inputs; the input dtype is part of the FX graph cache key, so the compile after the reset
misses the entry the float32 compile wrote. The miss is explained by the dtype, at the call."""
import torch


def poly(x):
    return x * x * 0.5 - x


torch.compile(poly)(torch.ones(8))
torch._dynamo.reset()
torch.compile(poly)(torch.ones(8, dtype=torch.float64))  # <- diagnosis
print("ok")
