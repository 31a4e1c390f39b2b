# Selective activation checkpointing (torch docs' SAC recipe: save matmuls, recompute the rest)
# on a small MLP trained under torch.compile; the compiled run is compared with eager.
import copy
import functools
import torch
import torch.nn as nn
from torch.utils.checkpoint import (checkpoint, create_selective_checkpoint_contexts,
                                    CheckpointPolicy)

torch.manual_seed(0)


def policy(ctx, op, *args, **kwargs):
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


class MLP(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def block(self, x):
        return x + self.fc2(torch.tanh(self.fc1(x)).sin())

    def forward(self, x):
        ctx = functools.partial(create_selective_checkpoint_contexts, policy)
        h = checkpoint(self.block, x, use_reentrant=False, context_fn=ctx)
        return (h ** 2).mean()


eager = MLP()
comp = copy.deepcopy(eager)
cstep = torch.compile(comp)
opt_e = torch.optim.SGD(eager.parameters(), lr=0.1)
opt_c = torch.optim.SGD(comp.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(8, 16)
    le, lc = eager(x), cstep(x)
    for opt, loss in ((opt_e, le), (opt_c, lc)):
        opt.zero_grad()
        loss.backward()
        opt.step()
    gdiff = max((a.grad - b.grad).abs().max().item()
                for a, b in zip(eager.parameters(), comp.parameters()))
    print(f"step {step} loss eager={le.item():.5f} compiled={lc.item():.5f} "
          f"grad ok={gdiff < 1e-4}")
