"""Aliasing: the compiled function gets a buffer and a view of it (`hist[1:]`), mutates the
buffer in place and returns a view of the other input. AOTAutograd rebuilds the two inputs
from one synthetic base and fails regenerating the output view (pytorch/pytorch#198095)."""
import torch


@torch.compile
def decay(buf, tail):
    buf.mul_(0.5)
    return tail.view(-1)


buf = torch.ones(4, 3)
print(decay(buf, buf[1:]).sum())  # <- diagnosis
