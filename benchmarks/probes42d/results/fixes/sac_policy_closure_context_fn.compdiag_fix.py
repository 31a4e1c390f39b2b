"""Selective activation checkpointing (SAC) inside a compiled transformer-ish MLP stack.

Pattern from torch.utils.checkpoint's docs for create_selective_checkpoint_contexts
(save matmuls, recompute the cheap pointwise ops), with the policy and the
context_fn written as closures inside forward() so they can see a per-model
set of ops to save.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

torch.manual_seed(0)

OPS_TO_SAVE = {torch.ops.aten.mm.default, torch.ops.aten.addmm.default}


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class Encoder(nn.Module):
    def __init__(self, d=32, depth=3, save_ops=OPS_TO_SAVE):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(depth))
        self.head = nn.Linear(d, 4)
        self.save_ops = save_ops

    @torch.compiler.disable
    def forward(self, x):
        save_ops = self.save_ops

        def policy_fn(ctx, op, *args, **kwargs):
            if op in save_ops:
                return CheckpointPolicy.MUST_SAVE
            return CheckpointPolicy.PREFER_RECOMPUTE

        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False,
                           context_fn=lambda: create_selective_checkpoint_contexts(policy_fn))
        return self.head(x.mean(1))


model = Encoder()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

g = torch.Generator().manual_seed(1)
for step in range(3):
    x = torch.randn(8, 12, 32, generator=g)
    y = torch.randint(0, 4, (8,), generator=g)
    loss = F.cross_entropy(cmodel(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.5f}")
