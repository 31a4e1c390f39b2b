"""Distributed evaluation on two gloo ranks: each rank evaluates its shard with a compiled step;
rank 0 also counts correct predictions for its progress report, inside the step."""
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
W = torch.randn(16, 4) / 4


@torch.compile
def eval_step(x, y):
    logits = x @ W
    loss = F.cross_entropy(logits, y)
    n_correct = None
    if rank == 0:
        n_correct = (logits.argmax(-1) == y).sum().item()
    return loss, n_correct


torch.manual_seed(100 + rank)
total = torch.zeros(())
for i in range(3):
    x, y = torch.randn(32, 16), torch.randint(0, 4, (32,))
    loss, n_correct = eval_step(x, y)
    total += loss.detach()
    if n_correct is not None:
        print(f"rank 0 batch {i}: {n_correct}/32 correct")
dist.all_reduce(total)
if rank == 0:
    print(f"mean loss over ranks {total.item() / 6:.4f}")
dist.destroy_process_group()
