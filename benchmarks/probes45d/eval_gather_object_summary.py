"""Distributed evaluation (torchrun --nproc-per-node 2, gloo): the compiled eval step scores
this rank's shard and gathers every rank's {rank, n} summary with dist.all_gather_object
so that rank 0 can log a per-rank table.
Source: pytorch/pytorch#96742 and #123041 (dist.* calls inside a compiled model).
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn


class TinyClassifier(nn.Module):
    def __init__(self, d_in=16, hidden=32, n_cls=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Linear(hidden, n_cls))

    def forward(self, x):
        return self.net(x)


@torch.compile
def eval_step(model, x, y, world):
    logits = model(x)
    correct = (logits.argmax(-1) == y).sum()
    summaries = [None] * world
    dist.all_gather_object(summaries, {"rank": dist.get_rank(), "n": x.shape[0]})
    return correct, summaries


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = TinyClassifier().eval()
    g = torch.Generator().manual_seed(100 + rank)
    total_correct, total_n = 0, 0
    with torch.no_grad():
        for _ in range(3):
            x = torch.randn(32, 16, generator=g)
            y = torch.randint(0, 4, (32,), generator=g)
            correct, summaries = eval_step(model, x, y, world)
            total_correct += int(correct)
            total_n += sum(s["n"] for s in summaries)
    if rank == 0:
        print(f"rank0 correct={total_correct} seen_all_ranks={total_n}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
