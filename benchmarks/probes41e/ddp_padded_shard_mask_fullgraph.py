"""DDP classifier training on 2 ranks with a DistributedSampler.

The dataset (11 samples) does not split evenly, so the sampler pads the last
rank's shard with a repeated sample; the collate marks padded slots so the
model averages the loss over the real samples only.  The model is compiled with fullgraph=True.
Run: torchrun --nproc-per-node 2 THIS.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Classifier(nn.Module):
    def __init__(self, dim=16, classes=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Linear(32, classes)

    def forward(self, x, y, keep=None):
        logits = self.head(self.body(x))
        if keep is not None:  # padded shard: average over the real samples only
            if not keep.any():  # an all-padding batch contributes nothing
                return logits.sum() * 0.0
            logits, y = logits[keep], y[keep]
        return F.cross_entropy(logits, y)


def make_loader(rank, world):
    g = torch.Generator().manual_seed(0)
    ds = TensorDataset(torch.randn(11, 16, generator=g), torch.randint(0, 4, (11,), generator=g))
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=False)
    positions = iter(range(rank, sampler.total_size, world))  # global slot of each sample

    def collate(batch):
        keep = torch.tensor([next(positions) < len(ds) for _ in batch])  # padded slots are repeats
        x = torch.stack([b[0] for b in batch])
        y = torch.stack([b[1] for b in batch])
        return x, y, (None if bool(keep.all()) else keep)

    return DataLoader(ds, batch_size=2, sampler=sampler, collate_fn=collate)


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = DDP(torch.compile(Classifier(), fullgraph=True))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for step, (x, y, keep) in enumerate(make_loader(rank, world)):
            loss = model(x, y, keep)
            opt.zero_grad()
            loss.backward()
            opt.step()
            avg = loss.detach().clone()
            dist.all_reduce(avg)
            if rank == 0:
                print(f"epoch {epoch} step {step} loss {avg.item() / world:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
