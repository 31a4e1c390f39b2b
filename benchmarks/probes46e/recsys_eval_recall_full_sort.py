"""Offline evaluation of a two-tower recommender: recall@10 and MRR@10 per user.

`evaluate_batch` is compiled. It scores every user against the whole item
catalogue and then ranks the scores with a full `torch.sort` over 20k items,
only to read the first 10 columns. Inductor has no CPU lowering for sort and
calls the eager aten.sort kernel, which is nearly all of the time, so the
compiled evaluation is no faster than eager. `torch.topk(scores, 10)` gives
the same top 10. Set PROBE_TIME=1 to print eager vs compiled times to stderr.
"""
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

N_USERS, N_ITEMS, DIM, K = 512, 20000, 32, 10


class Tower(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim)
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, ids):
        return F.normalize(self.proj(self.emb(ids)), dim=-1)


user_tower, item_tower = Tower(N_USERS, DIM).eval(), Tower(N_ITEMS, DIM).eval()


def evaluate_batch(user_vecs, item_vecs, seen_mask, target):
    scores = user_vecs @ item_vecs.T
    scores = scores.masked_fill(seen_mask, float("-inf"))   # never recommend seen items
    ranked = torch.sort(scores, dim=1, descending=True).indices[:, :K]
    hits = ranked == target[:, None]
    recall = hits.any(dim=1).float()
    rr = (hits.float() / torch.arange(1, K + 1)).sum(dim=1)
    return recall.mean(), rr.mean()


def main():
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        items = item_tower(torch.arange(N_ITEMS))
        users = user_tower(torch.arange(N_USERS))
    seen = torch.rand(N_USERS, N_ITEMS, generator=g) < 0.01
    target = (users @ items.T).masked_fill(seen, float("-inf")).argmax(1)
    target = torch.where(torch.rand(N_USERS, generator=g) < 0.5, target,
                         torch.randint(0, N_ITEMS, (N_USERS,), generator=g))

    evaluate_c = torch.compile(evaluate_batch)
    times = {}
    for name, fn in (("eager", evaluate_batch), ("compiled", evaluate_c)):
        fn(users, items, seen, target)
        t0 = time.process_time()
        for _ in range(3):
            recall, mrr = fn(users, items, seen, target)
        times[name] = (time.process_time() - t0) / 3
        print(f"{name:8s} recall@{K} {recall:.4f}  MRR@{K} {mrr:.4f}")
    if os.environ.get("PROBE_TIME"):
        print(f"eval ms eager {times['eager']*1e3:.1f} compiled {times['compiled']*1e3:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
