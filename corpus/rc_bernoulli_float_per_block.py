"""Recompile (limit): probes46a vit_droppath_regional_bernoulli. A stochastic-depth block per
layer, each with its own drop rate, compiled per block: `bernoulli_` takes its probability only
as a Python float, so each block's rate is a graph of its own, up to the recompile limit. A
comparison with `torch.rand` keeps the rate symbolic (one graph); `torch.tensor(rate)` made
inside does not."""
import torch
import torch.nn as nn


class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        keep = 1 - self.p
        mask = x.new_empty(x.shape[0], 1).bernoulli_(keep)  # <- diagnosis
        return x * mask / keep


blocks = [DropPath(0.05 * (i + 1)) for i in range(10)]
for b in blocks:
    b.compile(backend="eager")
x = torch.randn(4, 8)
for b in blocks:
    x = b(x)
print(x.shape)
