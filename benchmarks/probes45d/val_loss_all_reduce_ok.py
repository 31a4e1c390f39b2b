"""Correct cousin of val_loss_reduce_to_rank0.py: the compiled validation step sums the
loss across ranks with dist.all_reduce, which Dynamo remaps to a functional collective
(traceable), so the step compiles to one graph per shape.
Source: pytorch/pytorch#112028 (all_reduce remap) and test/distributed/test_inductor_collectives.py.
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self, d_in=12, hidden=24):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x))).squeeze(-1)


@torch.compile
def val_step(model, x, y):
    pred = model(x)
    loss_sum = F.mse_loss(pred, y, reduction="sum")
    dist.all_reduce(loss_sum)
    return loss_sum / (x.shape[0] * dist.get_world_size())


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = Regressor().eval()
    g = torch.Generator().manual_seed(7 + rank)
    losses = []
    with torch.no_grad():
        for _ in range(4):
            x = torch.randn(64, 12, generator=g)
            y = x[:, :3].sum(-1) + 0.1 * torch.randn(64, generator=g)
            losses.append(val_step(model, x, y))
    if rank == 0:
        print(f"val mse per batch: {[round(float(l), 4) for l in losses]}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
