"""Expert-parallel MoE block trained on 2 ranks (one expert per rank).

Tokens are routed to the rank that owns their expert with all_to_all_single;
the split sizes come from an exchange of per-rank token counts, as in
torchtitan's token dispatch.  Run: torchrun --nproc-per-node 2 THIS.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed._functional_collectives import all_to_all_single_autograd


class ExpertParallelMoE(nn.Module):
    def __init__(self, dim, world):
        super().__init__()
        self.world = world
        self.norm = nn.LayerNorm(dim)
        self.router = nn.Linear(dim, world, bias=False)
        self.expert = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        h = self.norm(x)
        gate, dest = self.router(h).softmax(-1).max(-1)
        order = dest.argsort(stable=True)
        send_counts = (dest[:, None] == torch.arange(self.world)).sum(0)
        recv_counts = torch.empty_like(send_counts)
        dist.all_to_all_single(recv_counts, send_counts)
        in_splits, out_splits = torch.stack([send_counts, recv_counts]).tolist()
        routed = all_to_all_single_autograd(h[order], out_splits, in_splits, dist.group.WORLD)
        y = self.expert(routed)
        back = all_to_all_single_autograd(y, in_splits, out_splits, dist.group.WORLD)
        out = torch.empty_like(back).index_copy(0, order, back)
        return x + out * gate[:, None]


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = ExpertParallelMoE(16, world)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    cmodel = torch.compile(model)
    gen = torch.Generator().manual_seed(100 + rank)
    for step in range(5):
        x = torch.randn(24, 16, generator=gen)
        target = torch.randn(24, 16, generator=gen)
        loss = (cmodel(x) - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        for p in model.parameters():  # data-parallel average of the router/norm grads
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
        total = loss.detach().clone()
        dist.all_reduce(total)
        if rank == 0:
            print(f"step {step} mean loss {total.item() / world:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
