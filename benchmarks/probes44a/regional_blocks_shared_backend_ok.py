"""Correct cousin of regional_blocks_fresh_backend_recompile.py: one graph-counting
backend is built once and reused for every block, so the blocks share compiled code."""
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F

graph_stats = collections.Counter()


def make_counting_backend(tag):
    def backend(gm, example_inputs):
        graph_stats[tag] += 1
        return gm.forward
    return backend


SHARED_BACKEND = make_counting_backend("blocks")


def compile_block(block, idx):
    return torch.compile(block, backend=SHARED_BACKEND)


class MLPBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Tower(nn.Module):
    def __init__(self, dim=16, depth=10, n_out=3):
        super().__init__()
        self.stem = nn.Linear(dim, dim)
        self.blocks = nn.ModuleList([MLPBlock(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, n_out)

    def forward(self, x):
        x = self.stem(x)
        for blk in self.blocks:
            x = blk(x)
        return self.head(x.mean(1))


def main():
    torch.manual_seed(0)
    model = Tower()
    for i, blk in enumerate(model.blocks):
        model.blocks[i] = compile_block(blk, i)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for it in range(3):
        x = torch.randn(8, 6, 16)
        y = torch.randint(0, 3, (8,))
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"iter {it} loss {loss.item():.4f}")
    print("graphs compiled for blocks:", sum(graph_stats.values()))


if __name__ == "__main__":
    main()
