"""pytorch/pytorch#197091: torch.ldexp's output dtype differs between eager (type promotion of both operands: float32) and Inductor (the mantissa's float16)."""
import torch
def f(m, e):
    return torch.ldexp(m, e)
out = torch.compile(f)(torch.randn(3, 4).half(), torch.randn(3, 4))
print(out.dtype)
