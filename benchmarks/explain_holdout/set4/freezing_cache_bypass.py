"""pytorch/pytorch PR #117888 ("[inductor] Make some improvements to FX graph caching": "Skip
caching when freezing is enabled (Freezing can embed constants that wouldn't be static across
runs)"): with Inductor freezing on, an inference compile is not stored in the FX graph cache, so
the same compile after torch._dynamo.reset() is compiled again instead of served from the cache."""
import torch
from torch._dynamo.utils import counters

torch._inductor.config.freezing = True
model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU()).eval()
x = torch.randn(4, 16)
with torch.no_grad():
    torch.compile(model)(x)
    torch._dynamo.reset()
    torch.compile(model)(x)
print("inductor:", {k: v for k, v in counters["inductor"].items() if "cache" in k})
