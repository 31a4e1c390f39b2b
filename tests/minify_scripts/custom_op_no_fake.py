"""Minify e2e: a Dynamo-stage failure, a custom op without a fake implementation, after two
ops Dynamo traced fine (the minimal repro keeps only the custom op)."""
import torch


@torch.library.custom_op("cdtest::clamp_abs", mutates_args=())
def clamp_abs(x: torch.Tensor) -> torch.Tensor:
    return x.abs().clamp(max=1.0)


w = torch.randn(6)


@torch.compile(backend="eager")
def f(x):
    y = torch.sin(x) + w
    return clamp_abs(y * 3) - 1


f(torch.randn(6))
