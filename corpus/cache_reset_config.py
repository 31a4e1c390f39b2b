"""Cache: a compile after torch._dynamo.reset() misses the FX graph cache because an Inductor
config changed between the two compiles of one function in one process. PyTorch's own FX
graph cache tests compile, reset and compile again in one process to hit the cache
(pytorch/pytorch#103453, #111421); a config flipped in between makes the second a miss, and
torch names both compiles 0/0."""
import torch


def scale(x):
    return torch.cos(x) * 3.25 - 0.5


f = torch.compile(scale)
f(torch.ones(8))
torch._dynamo.reset()
torch._inductor.config.fallback_random = True  # <- diagnosis
f = torch.compile(scale)
f(torch.ones(8))
print("ok")
