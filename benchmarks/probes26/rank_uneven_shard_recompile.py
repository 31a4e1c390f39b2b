"""Data-parallel training by hand on two gloo ranks: the dataset (17 samples) is split into
contiguous shards with ceil(), batches of 3, gradients all-reduced after each backward."""
import math

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 32), nn.Linear(32, 1)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


torch.manual_seed(0)
model = torch.compile(Regressor())
opt = torch.optim.SGD(model.parameters(), lr=0.05)
X, Y = torch.randn(17, 8), torch.randn(17, 1)
per = math.ceil(len(X) / world)
xs, ys = X[rank * per:(rank + 1) * per], Y[rank * per:(rank + 1) * per]
for epoch in range(2):
    for i in range(0, len(xs), 3):
        xb, yb = xs[i:i + 3], ys[i:i + 3]
        pred = model(xb)
        loss = F.mse_loss(pred, yb)
        opt.zero_grad()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
    print(f"rank {rank} epoch {epoch} last loss {loss.item():.4f}")
dist.destroy_process_group()
