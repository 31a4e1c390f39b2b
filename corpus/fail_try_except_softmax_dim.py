# after pytorch/pytorch#184364 ("torch.compile wraps IndexError as non-IndexError exceptions,
# breaking except IndexError and fallback handlers")
"""Failure (dynamo) of an exception the program's own try/except handles in eager: a softmax
over a dimension the tensor does not have raises IndexError, eager's `except IndexError` falls
back to the last dimension, but under torch.compile the IndexError is raised while Dynamo runs
the op on fake tensors and escapes the compile instead of reaching the handler. The line is
the softmax inside the `try`."""
import torch


def normalise(t, dim):
    try:
        return torch.softmax(t, dim=dim)  # <- diagnosis
    except IndexError:
        return torch.softmax(t, dim=-1)


x = torch.randn(4)
print(normalise(x, 10).shape)  # eager: the fallback
print(torch.compile(normalise)(x, 10).shape)
