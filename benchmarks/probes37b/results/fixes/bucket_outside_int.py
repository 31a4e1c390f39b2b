# Serving a small text classifier: pad each request batch up to a length bucket so that only a
# few shapes reach the compiled model (the usual "pad to buckets" recipe); the bucket lookup is
# done with bisect inside forward().
import bisect

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
BUCKETS = [16, 32, 48, 64]


class Encoder(nn.Module):
    def __init__(self, vocab=100, dim=32, ncls=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.proj = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, ncls)

    def forward(self, ids, P):
        L = ids.shape[1]
        ids = F.pad(ids, (0, int(P) - L))
        mask = (ids != 0).unsqueeze(-1).float()
        h = torch.tanh(self.proj(self.emb(ids)))
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.head(pooled)


model = Encoder().eval()
cmodel = torch.compile(model)
with torch.no_grad():
    for step, L in enumerate([9, 14, 23, 30, 41, 12, 57, 35]):
        ids = torch.randint(1, 100, (4, L))
        P = BUCKETS[bisect.bisect_left(BUCKETS, L)]
        out = cmodel(ids, P)
        ref = model(ids, P)
        ok = torch.allclose(out, ref, atol=1e-5)
        print(f"step {step} len {L:2d}: pred {out.argmax(1).tolist()} matches eager {ok}")
