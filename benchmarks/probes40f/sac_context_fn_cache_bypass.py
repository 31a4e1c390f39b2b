# Notebook-style sweep: each run resets Dynamo and recompiles a model that uses selective
# activation checkpointing (save the matmuls, recompute the rest).  The context_fn is a
# functools.partial without a `cache_hash` attribute, so AOTAutograd cannot hash it and
# bypasses its cache on every compile ("SAC context_fn does not have a cache_hash attribute",
# torch/_functorch/_aot_autograd/autograd_cache.py): the forward/backward tracing and
# partitioning run cold in every experiment even though nothing changed.
import functools

import torch
import torch.nn as nn
from torch._dynamo.utils import counters
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

torch.manual_seed(0)


def save_matmuls(ctx, op, *args, **kwargs):
    if op == torch.ops.aten.mm.default:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


sac_context = functools.partial(create_selective_checkpoint_contexts, save_matmuls)


class Block(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(2))

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False, context_fn=sac_context)
        return x.pow(2).mean()


x = torch.randn(32, 64)
for lr in (1e-2, 1e-3):
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    step = torch.compile(net)
    for _ in range(3):
        loss = step(x)
        opt.zero_grad()
        loss.backward()
        opt.step()
    aot = counters["aot_autograd"]
    print(f"lr={lr}: loss {loss.item():.5f} aot_cache hit={aot['autograd_cache_hit']} "
          f"bypass={aot['autograd_cache_bypass']}")
