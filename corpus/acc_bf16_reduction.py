"""Accuracy: bf16 sum — eager rounds every step to bf16, Inductor accumulates in fp32.

No *_TESTING_ONLY injector here: diagnosing it needs a real compiled-vs-eager comparison
(`compdiag check`, not yet built). Listed in README as a known gap."""
import torch


def norm(x):
    return (x * x).sum() / x.numel()


x = torch.randn(4096, dtype=torch.bfloat16) * 50
out = torch.compile(norm)(x)  # <- diagnosis
print("compiled", out.item(), "eager", norm(x).item())
