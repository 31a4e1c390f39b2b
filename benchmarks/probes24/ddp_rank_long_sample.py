"""Two-rank DDP text classifier; each rank reads its own shard. At step 2 rank 1's shard
yields a batch of longer documents (48 tokens instead of 32): only rank 1 recompiles, and
rank 0 waits in DDP's all-reduce while it does (pytorch #108971: one rank compiling while the
others sit in a collective)."""
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=60))
rank = dist.get_rank()
torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        self.proj = nn.Linear(32, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, tokens):
        h = torch.tanh(self.proj(self.emb(tokens)))
        return self.head(h.mean(1))


def shard_batch(step):
    length = 48 if (rank == 1 and step == 2) else 32
    g = torch.Generator().manual_seed(rank * 100 + step)
    return (torch.randint(0, 100, (8, length), generator=g),
            torch.randint(0, 4, (8,), generator=g))


model = DDP(torch.compile(Encoder()))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    tokens, labels = shard_batch(step)
    logits = model(tokens)
    loss = nn.functional.cross_entropy(logits, labels)
    loss.backward()
    opt.step()
    opt.zero_grad()
print(f"rank {rank} final loss {loss.item():.4f}")
dist.destroy_process_group()
