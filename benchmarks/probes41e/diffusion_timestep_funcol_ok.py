"""Tiny denoising-diffusion training step on 2 data-parallel ranks.

All ranks must train on the same noise level each step, so rank 0 draws the
timesteps and broadcasts them inside the compiled training step with the traceable
functional broadcast.
Run: torchrun --nproc-per-node 2 THIS.py
"""
import datetime
import math

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.distributed._functional_collectives as funcol

T = 100


class Denoiser(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.t_embed = nn.Embedding(T, dim)
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.SiLU(), nn.Linear(64, dim))

    def forward(self, x_t, t):
        return self.net(x_t + self.t_embed(t))


def alpha_bar(t):
    return torch.cos((t.float() / T + 0.008) / 1.008 * math.pi / 2) ** 2


@torch.compile
def diffusion_loss(model, x0):
    t = torch.randint(0, T, (x0.shape[0],))
    t = funcol.broadcast(t, 0, dist.group.WORLD)
    noise = torch.randn_like(x0)
    a = alpha_bar(t)[:, None]
    x_t = a.sqrt() * x0 + (1 - a).sqrt() * noise
    return (model(x_t, t) - noise).pow(2).mean()


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = Denoiser()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    torch.manual_seed(1 + rank)
    data = torch.randn(64, 32)
    for step in range(6):
        x0 = data[step * 8:(step + 1) * 8]
        loss = diffusion_loss(model, x0)
        opt.zero_grad()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
        avg = loss.detach().clone()
        dist.all_reduce(avg)
        if rank == 0:
            print(f"step {step} loss {avg.item() / world:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
