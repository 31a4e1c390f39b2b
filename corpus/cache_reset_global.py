# after pytorch/pytorch#110107: torch._dynamo.reset() before and after running each test
"""Cache: a harness resets Dynamo between runs of the same function, and the script changes a
module-level constant the function reads between them. Dynamo bakes the global's value into
the graph as a constant, so the compile after the reset builds a different graph and misses
the FX graph cache entry of the first. The miss is explained by the global, at the line that
changed it; torch names both compiles 0/0."""
import torch

SCALE = 2.0


def scaled(x):
    return torch.tanh(x) * SCALE


torch.compile(scaled)(torch.ones(8))
torch._dynamo.reset()
SCALE = 3.0  # <- diagnosis
torch.compile(scaled)(torch.ones(8))
print("ok")
