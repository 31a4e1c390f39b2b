# Deep MLP trained with activation checkpointing: the blocks are run through
# torch.utils.checkpoint.checkpoint_sequential in 2 segments to save memory,
# and the whole model is compiled.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential


class DeepMLP(nn.Module):
    def __init__(self, dim=32, depth=6, segments=2):
        super().__init__()
        self.inp = nn.Linear(16, dim)
        self.blocks = nn.Sequential(*[nn.Sequential(nn.Linear(dim, dim), nn.LayerNorm(dim), nn.GELU())
                                      for _ in range(depth)])
        self.out = nn.Linear(dim, 4)
        self.segments = segments

    def forward(self, x):
        h = self.inp(x)
        h = checkpoint_sequential(self.blocks, self.segments, h, use_reentrant=False)
        return self.out(h)


torch.manual_seed(0)
model = DeepMLP()
for blk in model.blocks:
    blk.compile()
model.inp.compile(); model.out.compile()
cmodel = model
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(64, 16)
y = torch.randint(0, 4, (64,))
for step in range(4):
    loss = nn.functional.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
