"""Accuracy: in float16, x * x overflows to inf in eager, while the compiled kernel keeps the
product in float32 registers and y / x comes back finite, like the float64 reference: only the
inf positions differ. After pytorch/pytorch#183607 ("torch.compile changes fp16 overflow
behavior": `y = x * x; y / x` with x = 300)."""
import torch


def f(x):
    y = x * x
    return y / x  # <- diagnosis


x = torch.full((40,), 300.0, dtype=torch.float16)
print(torch.compile(f)(x)[0])
