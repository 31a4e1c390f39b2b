"""Planted limiter: cumsum has no Inductor lowering on CPU in this torch, so it runs as an
eager ATen fallback kernel in the middle of otherwise fused pointwise work."""
import torch


def hot(x):
    y = torch.sigmoid(x) * 2.0 + torch.tanh(x)
    c = torch.cumsum(y, 1)  # <- the planted limiter
    return torch.relu(c) * 0.5 + torch.sin(c)


compiled = torch.compile(hot)
x = torch.randn(256, 1024)
for _ in range(20):
    out = compiled(x)
print("ok", round(float(out.sum()), 3))
