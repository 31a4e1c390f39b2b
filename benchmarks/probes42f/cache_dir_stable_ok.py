"""Tabular regression trainer with a per-project inductor cache directory.

Correct cousin of cache_dir_mkdtemp_cold.py: the cache directory is stable
across launches (one folder per project, not per process), so the second
launch of the same program loads its compiled graphs from the cache.
"""
import os

os.environ.setdefault(
    "TORCHINDUCTOR_CACHE_DIR",
    os.path.join(os.path.expanduser("~"), ".cache", "tabular_mlp", "inductor"),
)

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResidualMLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, n_blocks=2):
        super().__init__()
        self.inp = nn.Linear(d_in, d_hidden)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(d_hidden), nn.Linear(d_hidden, d_hidden), nn.GELU())
            for _ in range(n_blocks)
        )
        self.out = nn.Linear(d_hidden, 1)

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = h + blk(h)
        return self.out(h).squeeze(-1)


def make_data(n=512, d=32):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, d, generator=g)
    w = torch.randn(d, generator=g)
    y = torch.tanh(x @ w) + 0.05 * torch.randn(n, generator=g)
    return x, y


def main():
    torch.manual_seed(0)
    x, y = make_data()
    model = ResidualMLP()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    step = torch.compile(model)

    for epoch in range(3):
        total = 0.0
        for i in range(0, x.shape[0], 128):
            xb, yb = x[i:i + 128], y[i:i + 128]
            loss = F.mse_loss(step(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / 4:.4f}")


if __name__ == "__main__":
    main()
