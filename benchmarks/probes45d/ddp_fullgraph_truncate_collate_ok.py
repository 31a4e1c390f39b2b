"""Correct cousin of ddp_fullgraph_truncate_warn_rank1.py (torchrun --nproc-per-node 2, gloo):
the truncation and its warning live in the collate step, outside the compiled forward, so
both ranks trace the same warning-free graph under fullgraph=True (rank 1's longer shard
is cut before it reaches the model).
Source: pytorch/pytorch#107639 and tenstorrent/tt-torch#852 (move logging out of the
compiled region).
"""
import datetime
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

MAX_LEN = 12


class BagClassifier(nn.Module):
    def __init__(self, vocab=100, dim=16, max_len=MAX_LEN, n_cls=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(max_len, dim))
        self.head = nn.Linear(dim, n_cls)

    def forward(self, tokens):
        h = self.emb(tokens) + self.pos[: tokens.shape[1]]
        return self.head(h.mean(1))


def collate(tokens):
    if tokens.shape[1] > MAX_LEN:
        warnings.warn(f"truncating sequences of length {tokens.shape[1]} to {MAX_LEN}")
        tokens = tokens[:, :MAX_LEN]
    return tokens


def shard_batches(rank, steps=3):
    g = torch.Generator().manual_seed(rank)
    seq_len = 10 if rank == 0 else 16  # rank 1's shard holds the long documents
    for _ in range(steps):
        yield torch.randint(0, 100, (8, seq_len), generator=g), torch.randint(0, 3, (8,), generator=g)


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.compile(BagClassifier(), fullgraph=True)
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    for step, (tokens, labels) in enumerate(shard_batches(rank)):
        loss = F.cross_entropy(ddp(collate(tokens)), labels)
        loss.backward()
        opt.step()
        opt.zero_grad()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
