"""Two-rank evaluation on gloo: every rank embeds its shard of queries with a compiled
step, and the ranks are kept in lockstep so that their timings line up.

Launch: python -m torch.distributed.run --nproc-per-node 2 barrier_eval_step.py"""
import datetime
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


class QueryEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(500, 32, mode="sum")
        self.proj = nn.Linear(32, 32)

    def forward(self, ids):
        return F.normalize(self.proj(self.emb(ids)), dim=-1)


@torch.compile
def embed_step(encoder, ids, centroids):
    q = encoder(ids)
    dist.barrier()
    scores = q @ centroids.T
    return scores.argmax(-1)


dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
torch.manual_seed(0)
encoder = QueryEncoder().eval()
centroids = F.normalize(torch.randn(8, 32), dim=-1)
g = torch.Generator().manual_seed(rank)
with torch.no_grad():
    for batch in range(4):
        ids = torch.randint(0, 500, (16, 6), generator=g)
        t0 = time.perf_counter()
        clusters = embed_step(encoder, ids, centroids)
        if rank == 0:
            print(f"batch {batch} clusters {clusters.bincount(minlength=8).tolist()}", flush=True)
dist.destroy_process_group()
