"""Correct cousin of sac_policy_closure_context_fn.py: the same SAC encoder, with the
policy and the context_fn defined at module level (functools.partial of
create_selective_checkpoint_contexts), the way torch.compile can trace it.
"""
import functools

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

torch.manual_seed(0)

OPS_TO_SAVE = {torch.ops.aten.mm.default, torch.ops.aten.addmm.default}


def policy_fn(ctx, op, *args, **kwargs):
    if op in OPS_TO_SAVE:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


sac_context_fn = functools.partial(create_selective_checkpoint_contexts, policy_fn)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class Encoder(nn.Module):
    def __init__(self, d=32, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(depth))
        self.head = nn.Linear(d, 4)

    def forward(self, x):
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False, context_fn=sac_context_fn)
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
