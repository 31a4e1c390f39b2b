"""Hand-rolled data parallelism on 2 ranks with one process group per gradient
bucket (so that bucket reductions can run on separate communicators).

Each bucket is averaged by a small compiled helper that flattens the bucket,
all-reduces it over the bucket's group and scales it back.
Run: torchrun --nproc-per-node 2 THIS.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn


def make_model(depth=10, dim=16):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(dim, dim), nn.Tanh()]
    return nn.Sequential(*layers, nn.Linear(dim, 1))


@torch.compile
def average_bucket(w_grad, b_grad, group, world):
    flat = torch.cat([w_grad.reshape(-1), b_grad])
    dist.all_reduce(flat, group=group)
    flat = flat / world
    return flat[: w_grad.numel()].view_as(w_grad), flat[w_grad.numel():]


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = make_model()
    linears = [m for m in model if isinstance(m, nn.Linear)][:-1]
    bucket_groups = [dist.new_group(list(range(world))) for _ in linears]
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(rank)
    for step in range(4):
        x = torch.randn(32, 16, generator=g)
        y = x.sum(-1, keepdim=True).sin()
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        for lin, group in zip(linears, bucket_groups):
            lin.weight.grad, lin.bias.grad = average_bucket(lin.weight.grad, lin.bias.grad, group, world)
        head = model[-1]
        for p in head.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
        avg = loss.detach().clone()
        dist.all_reduce(avg)
        if rank == 0:
            print(f"step {step} loss {avg.item() / world:.5f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
