"""A model with a custom op (torch.library.custom_op) that copies rows through a C routine via
ctypes, the usual way to wrap a small native library. The byte count has a units bug
(nbytes * numel instead of nbytes), so the memmove runs far past the buffer and the process
dies with SIGSEGV inside the compiled call."""
import ctypes
import torch
import torch.nn as nn


@torch.library.custom_op("probes23::fast_copy", mutates_args=())
def fast_copy(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    nbytes = x.nbytes * x.numel()
    ctypes.memmove(out.data_ptr(), x.data_ptr(), nbytes)
    return out


@fast_copy.register_fake
def _(x):
    return torch.empty_like(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(256, 256)

    def forward(self, x):
        h = torch.relu(self.lin(x))
        return fast_copy(h) + x


model = torch.compile(Block().eval())
with torch.no_grad():
    for i in range(2):
        x = torch.randn(512, 256)
        y = model(x)
        print(i, float(y.sum()))
