"""Recompile: an Optional argument that is None on the first call and a tensor after it, a
decoder's `past` state (after pytorch/functorch#470)."""
import torch


def decode(x, past=None):
    if past is not None:  # <- diagnosis
        x = x + past
    return torch.tanh(x)


f = torch.compile(decode, backend="eager")
past = None
for step in range(4):
    past = f(torch.randn(2, 8), past)
print("ok")
