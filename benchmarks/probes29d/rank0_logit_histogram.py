"""Two-rank DDP training on gloo. The model is compiled with fullgraph=True and wrapped in
DDP; the main rank also keeps a histogram of the logits of every batch for a report.

Launch: python -m torch.distributed.run --nproc-per-node 2 rank0_logit_histogram.py"""
import datetime

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
RANK = dist.get_rank()


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(12, 48), nn.Tanh(), nn.Linear(48, 6))
        self.hist = np.zeros(10)

    def forward(self, x):
        logits = self.enc(x)
        if RANK == 0:
            for v in logits.detach().flatten().tolist():
                self.hist[min(max(int((v + 3) / 0.6), 0), 9)] += 1
        return logits


torch.manual_seed(0)
net = Tagger()
model = DDP(torch.compile(net, fullgraph=True))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
g = torch.Generator().manual_seed(5 + RANK)
for step in range(4):
    x = torch.randn(24, 12, generator=g)
    y = torch.randint(0, 6, (24,), generator=g)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if RANK == 0:
        print(f"step {step} loss {loss.item():.4f} hist {net.hist.astype(int).tolist()}", flush=True)
dist.destroy_process_group()
