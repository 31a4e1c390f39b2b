# after pytorch/pytorch#175608 ("torch.compile fails to trace try-except semantic and throw
# `RuntimeError`")
"""Failure (dynamo) of an exception the program's own try/except handles in eager: inverting a
non-square matrix raises RuntimeError, eager's `except RuntimeError` takes the fallback, but
Dynamo runs the op on fake tensors while tracing, the same check raises there, and Dynamo
turns it into a hard TorchRuntimeError instead of tracing the handler. The line is the op's
inside the `try`; the fix moves the try/except out of the compiled region or checks the
condition before the op. The issue's module, reduced to its forward."""
import torch
import torch.nn as nn


class Inverse(nn.Module):
    def forward(self, x):
        try:
            with torch.no_grad():
                torch.linalg.inv(x)  # <- diagnosis
        except RuntimeError:
            return x + 1
        return x


m = Inverse()
x = torch.randn(2, 3)
print(m(x).shape)  # eager: the except branch
print(torch.compile(m)(x).shape)
