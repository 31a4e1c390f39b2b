"""Correct cousin of ckpt_block_recompute_counter (counter moved out of the
checkpointed body). Small transformer-style encoder trained with activation checkpointing; each
block counts how often its body runs (forward + recompute) on a module attribute
from inside the checkpointed function.

Source: pytorch/pytorch#196199 (2026-09) "Mutating an external nn.Module
attribute inside a wrap HOP subgraph not supported".
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 64), nn.GELU(), nn.Linear(64, d))
        self.body_calls = 0

    def _body(self, x):
        return x + self.ff(self.norm(x))

    def forward(self, x):
        self.body_calls += 1  # bookkeeping outside the checkpointed region
        return checkpoint(self._body, x, use_reentrant=False)


class Encoder(nn.Module):
    def __init__(self, d=32, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(depth))
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.head(x.mean(1)).squeeze(-1)


def main():
    model = Encoder()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    step = torch.compile(model)
    g = torch.Generator().manual_seed(2)
    for it in range(4):
        x = torch.randn(8, 10, 32, generator=g)
        y = torch.randn(8, generator=g)
        loss = nn.functional.mse_loss(step(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {it} loss {loss.item():.4f}")
    print("body calls", [b.body_calls for b in model.blocks])


if __name__ == "__main__":
    main()
