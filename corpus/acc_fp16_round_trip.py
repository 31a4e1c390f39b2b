"""Accuracy: an explicit float32 -> float16 -> float32 round trip, rounding on purpose, that
Inductor's code leaves out: eager returns the rounded values, compiled the unrounded ones, so
the storage error this measures is zero when compiled. After pytorch/pytorch#185337 (the CPU's
float16 round trip) and #176565 (bfloat16 on CUDA); emulate_precision_casts rounds as eager."""
import torch


def storage_error(x):
    stored = x.to(torch.float16).to(torch.float32)  # <- diagnosis
    return (stored - x).abs().sum(dim=1)


x = torch.randn(64, 256)
print(torch.compile(storage_error)(x).mean())
