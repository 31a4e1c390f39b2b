"""DDP text classifier (torchrun --nproc-per-node 2, gloo) compiled with fullgraph=True.
Each rank reads its own shard; the model truncates over-long sequences and warns about it.
Only rank 1's shard holds sequences longer than max_len, so only rank 1 traces the
warnings.warn branch: fullgraph=True makes rank 1 raise while rank 0 goes on into the
gradient all-reduce and waits for a peer that has died.
Source: pytorch/pytorch#107639 (fullgraph=True inside DDP) and tenstorrent/tt-torch#852
(warning/logging calls in a compiled forward).
"""
import datetime
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class BagClassifier(nn.Module):
    def __init__(self, vocab=100, dim=16, max_len=12, n_cls=3):
        super().__init__()
        self.max_len = max_len
        self.emb = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(max_len, dim))
        self.head = nn.Linear(dim, n_cls)

    def forward(self, tokens):
        if tokens.shape[1] > self.max_len:
            warnings.warn(f"truncating sequences of length {tokens.shape[1]} to {self.max_len}")
            tokens = tokens[:, : self.max_len]
        h = self.emb(tokens) + self.pos[: tokens.shape[1]]
        return self.head(h.mean(1))


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
        loss = F.cross_entropy(ddp(tokens), labels)
        loss.backward()
        opt.step()
        opt.zero_grad()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
