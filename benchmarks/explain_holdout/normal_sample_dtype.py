"""pytorch/pytorch#194547: torch.distributions.Normal(loc fp16, scale fp32).sample() is float16 in eager, float32 compiled."""
import torch
torch.manual_seed(1367)
def fn(loc, scale):
    d = torch.distributions.Normal(loc, scale)
    return d.sample()
out = torch.compile(fn)(torch.zeros(8).to(torch.float16), torch.ones(8))
print(out.dtype)
