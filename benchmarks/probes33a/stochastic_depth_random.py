"""Train a small residual MLP with stochastic depth (layer drop): during training each block
is skipped with a probability that grows with depth."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)


class LayerDropMLP(nn.Module):
    def __init__(self, dim=64, depth=6, max_drop=0.5):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()) for _ in range(depth))
        self.drop_probs = [max_drop * i / (depth - 1) for i in range(depth)]
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        for block, p in zip(self.blocks, self.drop_probs):
            if self.training and random.random() < p:
                continue
            x = x + block(x)
        return self.head(x)


model = LayerDropMLP()
train_step_model = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))
    loss = F.cross_entropy(train_step_model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
