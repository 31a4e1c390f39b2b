"""Failure (AOTAutograd): probes47c ckpt_debug_compiled_blocks. Activation checkpointing with
`debug=True` inside a compiled model: torch raises "debug=True is incompatible with non-default
context_fn" from the checkpoint op itself, whatever the backend. The argument on the line is
the fix: without `debug=True` the model trains."""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(8, 8), nn.GELU()) for _ in range(2))

    def forward(self, x):
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False, debug=True)  # <- diagnosis
        return x.sum()


net = torch.compile(Net(), backend="aot_eager")
net(torch.randn(4, 8, requires_grad=True)).backward()
print("ok")
