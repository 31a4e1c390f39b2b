"""Graph break: Python `if` on a tensor's value (data-dependent control flow)."""
import torch


def clip_or_shift(x):
    if x.sum() > 0:  # <- diagnosis
        return x.clamp(max=1.0)
    return x + 1


torch.compile(clip_or_shift, backend="eager")(torch.randn(8))
print("ok")
