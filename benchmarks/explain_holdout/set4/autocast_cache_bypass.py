"""pytorch/pytorch#191106 ("AOTAutogradCache always bypasses graphs containing torch.autocast
(_enter_autocast), making AMP models uncacheable", https://github.com/pytorch/pytorch/issues/191106):
a compiled training step with an autocast region; after torch._dynamo.reset() the same step is
compiled again and AOTAutograd's cache is bypassed instead of hit (counted below)."""
import torch
from torch._dynamo.utils import counters

w = torch.randn(16, 16, requires_grad=True)


def step(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ w
    return y.float().relu().sum()


torch.compile(step)(torch.randn(4, 16)).backward()
torch._dynamo.reset()
torch.compile(step)(torch.randn(4, 16)).backward()
print("aot_autograd:", dict(counters["aot_autograd"]))
print("inductor:", {k: v for k, v in counters["inductor"].items() if "cache" in k})
