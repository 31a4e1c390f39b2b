# Retrieval server: each request scores its candidate docs; a request may arrive with no candidates.
import torch
import torch.nn as nn

torch.manual_seed(0)
scorer = nn.Bilinear(16, 16, 1).eval()


@torch.compile(dynamic=True)
def best_candidate(query, cands):
    q = query.unsqueeze(1).expand(-1, cands.shape[1], -1)
    scores = scorer(q.contiguous(), cands).squeeze(-1)  # (batch, n_cands)
    best = scores.max(dim=1)  # IndexError from torch when n_cands == 0
    return best.values, best.indices


def handle(query, cands):
    if cands.shape[1] == 0:  # early return before the compiled call
        return "no match"
    try:
        vals, idx = best_candidate(query, cands)
    except IndexError:  # no candidates for this request: answer "no match"
        return "no match"
    return [(round(v, 3), i) for v, i in zip(vals.tolist(), idx.tolist())]


gen = torch.Generator().manual_seed(2)
with torch.inference_mode():
    for n_cands in [5, 3, 0, 4]:
        query = torch.randn(2, 16, generator=gen)
        cands = torch.randn(2, n_cands, 16, generator=gen)
        print(n_cands, handle(query, cands))
