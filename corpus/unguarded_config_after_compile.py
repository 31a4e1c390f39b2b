"""An Inductor setting changed after the compile changes nothing (pytorch/pytorch#110682:
"configuration is not guarded, so compile products of stale configs will still hit"): the
program asks for eager's random numbers in compiled code after the first call, and the
compiled dropout still draws Inductor's own."""
import torch
import torch.nn.functional as F


@torch.compile
def noisy(x):
    return F.dropout(x, p=0.5, training=True) * 2


x = torch.ones(64)
noisy(x)  # the first call compiles
torch._inductor.config.fallback_random = True  # <- diagnosis
torch.manual_seed(0)
compiled = noisy(x)
torch.manual_seed(0)
eager = F.dropout(x, p=0.5, training=True) * 2
print("same as eager:", torch.equal(compiled, eager))
