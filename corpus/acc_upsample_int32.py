# after pytorch/pytorch#193811: torch.compile silently accepts int32 input to upsample_bilinear2d that eager correctly rejects
"""Accuracy, eager rejects what compiled accepts: bilinear upsampling has no integer kernel in
eager ("not implemented for 'Int'"); Inductor's decomposition computes it in whatever dtype it
is given and returns a tensor. Run with --check-accuracy."""
import torch


def enlarge(x):
    return torch.ops.aten.upsample_bilinear2d(x, [16, 15], False, None, None)  # <- diagnosis


out = torch.compile(enlarge)(torch.randn(1, 3, 1, 8).to(torch.int32))
print(out.shape)
