# Sequence classifier fed by a collate function that skips building the padding mask when
# every sequence in the batch already has the full length (mask=None), as many collators do.
from typing import NamedTuple, Optional

import torch
import torch.nn as nn

torch.manual_seed(0)
MAX_LEN, D = 8, 16


class Batch(NamedTuple):
    x: torch.Tensor
    mask: Optional[torch.Tensor] = None


def collate(seqs):
    x = torch.zeros(len(seqs), MAX_LEN, D)
    for i, s in enumerate(seqs):
        x[i, : len(s)] = s
    lengths = torch.tensor([len(s) for s in seqs])
    return Batch(x, torch.arange(MAX_LEN)[None, :] < lengths[:, None])


class Pooler(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(D, D)
        self.out = nn.Linear(D, 2)

    def forward(self, batch: Batch):
        h = torch.tanh(self.enc(batch.x))
        if batch.mask is not None:
            m = batch.mask.unsqueeze(-1).float()
            pooled = (h * m).sum(1) / m.sum(1)
        else:
            pooled = h.mean(1)
        return self.out(pooled)


model = torch.compile(Pooler().eval())
with torch.no_grad():
    for step, lens in enumerate([(8, 8, 8, 8), (8, 5, 8, 3), (8, 8, 8, 8), (2, 8, 7, 8)]):
        batch = collate([torch.randn(L, D) for L in lens])
        print(f"step {step} lens {lens} mask {'yes' if batch.mask is not None else 'none'}: "
              f"{[round(v, 4) for v in model(batch)[:, 1].tolist()]}")
