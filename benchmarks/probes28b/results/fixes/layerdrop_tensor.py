"""Train a deep residual MLP with stochastic depth: each step runs a random number of the
residual blocks (at least 2), which regularises the network and saves compute."""
import random

import torch
import torch.nn as nn

torch._dynamo.config.cache_size_limit = 64
torch.manual_seed(0)
random.seed(0)


class ResidualMLP(nn.Module):
    def __init__(self, dim=64, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()) for _ in range(depth))
        self.head = nn.Linear(dim, 1)

    def forward(self, x, n_blocks):
        for block in self.blocks[:n_blocks]:
            x = x + block(x)
        return self.head(x)


model = ResidualMLP()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
X = torch.randn(12, 32, 64)
Y = X.mean(-1, keepdim=True)
for step in range(12):
    depth = random.randint(2, len(model.blocks))
    loss = nn.functional.mse_loss(cmodel(X[step], torch.tensor(depth)), Y[step])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step:2d} depth {depth:2d} loss {loss.item():.4f}")
