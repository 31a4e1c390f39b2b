"""Vocab-parallel cross-entropy eval (Megatron-style) on 2 ranks, gloo, torchrun.

The LM head's vocab (1003 tokens) is split into equal shards of 502 rows; the
last rank's shard carries one padding row.  Perplexity is computed without
gathering the full logits: max, sum-exp and target logit are all-reduced.
"""
import datetime
import math

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.nn as nn

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
RANK, WORLD = dist.get_rank(), dist.get_world_size()
VOCAB, HIDDEN = 1003, 32
PER_RANK = math.ceil(VOCAB / WORLD)
START = RANK * PER_RANK
N_REAL = min(PER_RANK, VOCAB - START)


class VocabParallelHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(PER_RANK, HIDDEN) * 0.05)
        self.n_pad = PER_RANK - N_REAL
        self.register_buffer("real_rows", torch.arange(PER_RANK) < N_REAL)

    def forward(self, h):
        logits = h @ self.weight.t()
        if self.n_pad > 0:
            # the padding row of the last shard must not take part in the softmax
            if not self.real_rows.all():
                logits = logits.masked_fill(~self.real_rows, float("-inf"))
        return logits


@torch.compile(fullgraph=True)
def vocab_parallel_nll(head, h, targets):
    logits = head(h).float()
    gmax = funcol.all_reduce(logits.max(dim=1).values, "max", dist.group.WORLD)
    sum_exp = funcol.all_reduce(
        (logits - gmax.unsqueeze(1)).exp().sum(dim=1), "sum", dist.group.WORLD
    )
    local_t = targets - START
    in_shard = (local_t >= 0) & (local_t < N_REAL)
    picked = logits.gather(1, local_t.clamp(0, N_REAL - 1).unsqueeze(1)).squeeze(1)
    target_logit = funcol.all_reduce(picked * in_shard, "sum", dist.group.WORLD)
    return (gmax + sum_exp.log() - target_logit).mean()


torch.manual_seed(1234 + RANK)
head = VocabParallelHead()
with torch.no_grad():
    total = 0.0
    for step in range(3):
        g = torch.Generator().manual_seed(step)  # same batch on every rank
        h = torch.randn(16, HIDDEN, generator=g)
        targets = torch.randint(0, VOCAB, (16,), generator=g)
        nll = vocab_parallel_nll(head, h, targets)
        total += nll.item()
        if RANK == 0:
            print(f"step {step}: nll {nll.item():.4f}")
if RANK == 0:
    print(f"perplexity {math.exp(total / 3):.3f}")
dist.destroy_process_group()
