"""Failure (dynamo): a custom op without a fake (meta) implementation."""
import torch


@torch.library.custom_op("corpus::clamp_abs", mutates_args=())
def clamp_abs(x: torch.Tensor) -> torch.Tensor:
    return x.abs().clamp(max=1.0)


def f(x):
    return clamp_abs(x) * 2  # <- diagnosis


torch.compile(f, backend="eager")(torch.randn(4))
print("ok")
