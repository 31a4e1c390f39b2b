"""Planted limiter: a graph break (torch._dynamo.graph_break) in the middle of the hot
pointwise chain splits it into two graphs; neither half fuses across the break."""
import torch


def hot(x):
    for _ in range(6):
        x = torch.sin(x) * 1.01 + 0.5 * torch.cos(x)
    torch._dynamo.graph_break()  # <- the planted limiter
    for _ in range(6):
        x = torch.sin(x) * 1.01 + 0.5 * torch.cos(x)
    return x


compiled = torch.compile(hot)
x = torch.randn(512, 512)
for _ in range(20):
    out = compiled(x)
print("ok", round(float(out.sum()), 3))
