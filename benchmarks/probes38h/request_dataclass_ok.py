# Ranking server: requests are dataclasses, batched into a fixed bucket, scored by a compiled fn.
from dataclasses import dataclass
import torch
import torch.nn as nn

torch.manual_seed(0)
BUCKET = 8


@dataclass
class Batch:
    query: torch.Tensor  # (BUCKET, 16)
    docs: torch.Tensor  # (BUCKET, 5, 16)
    valid: torch.Tensor  # (BUCKET,) bool, padding rows False
    top_k: int = 3


tower = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16)).eval()


@torch.compile(fullgraph=True)
def rank(batch: Batch):
    q = nn.functional.normalize(tower(batch.query), dim=-1)
    d = nn.functional.normalize(tower(batch.docs), dim=-1)
    scores = (d @ q.unsqueeze(-1)).squeeze(-1)
    scores = scores.masked_fill(~batch.valid.unsqueeze(-1), 0.0)
    return scores.topk(batch.top_k, dim=-1)


def serve(requests):
    if not requests:  # empty tick: nothing to score
        return []
    n = len(requests)
    q = torch.zeros(BUCKET, 16)
    d = torch.zeros(BUCKET, 5, 16)
    q[:n] = torch.stack([r[0] for r in requests])
    d[:n] = torch.stack([r[1] for r in requests])
    valid = torch.arange(BUCKET) < n
    vals, idx = rank(Batch(q, d, valid))
    return list(zip(vals[:n].tolist(), idx[:n].tolist()))


with torch.inference_mode():
    for n in [3, 0, 5, 8, 1]:
        reqs = [(torch.randn(16), torch.randn(5, 16)) for _ in range(n)]
        res = serve(reqs)
        print(n, [([round(v, 3) for v in vs], ix) for vs, ix in res[:2]])
