"""Two-rank DDP MLP where only rank 0 records activation statistics for its dashboard
(`h.mean().item()` inside forward). `.item()` is a graph break under torch.compile, so rank 0
compiles the forward as two graphs and rank 1 as one: the ranks' compiled graphs differ
(a graph break on one rank only)."""
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=60))
rank = dist.get_rank()
torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, track_stats):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 10)
        self.track_stats = track_stats
        self.act_means = []

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        if self.track_stats:
            self.act_means.append(h.mean().item())
        return self.fc2(h)


model = DDP(torch.compile(MLP(track_stats=(rank == 0))))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    x = torch.randn(16, 64)
    y = torch.randint(0, 10, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
if rank == 0:
    print("activation means", [round(m, 3) for m in model.module.act_means])
dist.destroy_process_group()
