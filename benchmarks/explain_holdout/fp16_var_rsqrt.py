"""pytorch/pytorch#183605: fp16 var + rsqrt normalisation: eager all NaN, compiled all zeros."""
import torch
def fn(x):
    var = x.var(dim=-1, keepdim=True)
    return x * torch.rsqrt(var + 1e-9)
x = torch.full((3, 5), 1e-10, dtype=torch.float16)
out = torch.compile(fn)(x)
print(out[0,0])
