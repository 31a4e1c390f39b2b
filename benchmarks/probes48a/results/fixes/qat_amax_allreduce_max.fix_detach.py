"""Quantization-aware training (int8 fake quantization of activations) with DDP on the CPU
(gloo, 2 ranks). The activation scale comes from the tensor's absolute maximum, synchronised
across the data-parallel ranks with an all_reduce(MAX) so that every replica quantizes with the
same scale (as Transformer Engine syncs its amax across the data-parallel group); rounding uses
a straight-through estimator, the scale stays in the autograd graph. The module is compiled
before DDP wraps it.

Source: NVIDIA/TransformerEngine (amax reduction across the data-parallel group with
ReduceOp.MAX); LSQ/PACT-style fake quantization with a straight-through round; torch 2.13's
torch/distributed/_functional_collectives.py (`all_reduce_backward`: "all_reduce backward only
supports 'sum' reduction"), which compiled code uses because Dynamo rewrites `dist.all_reduce`
into `_c10d_functional.all_reduce`; pytorch/pytorch PR #93990 review (the all_reduce derivative).

Run: torchrun --standalone --nproc-per-node 2 qat_amax_allreduce_max.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class FakeQuantInt8(nn.Module):
    def forward(self, x):
        amax = x.detach().abs().amax()
        dist.all_reduce(amax, op=dist.ReduceOp.MAX)
        scale = amax.clamp(min=1e-8) / 127.0
        xs = x / scale
        xq = xs + (xs.round() - xs).detach()  # straight-through rounding
        return xq.clamp(-127, 127) * scale


class QATMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.q1 = nn.Linear(32, 64), FakeQuantInt8()
        self.fc2, self.q2 = nn.Linear(64, 64), FakeQuantInt8()
        self.out = nn.Linear(64, 5)

    def forward(self, x):
        x = self.q1(F.relu(self.fc1(x)))
        x = self.q2(F.relu(self.fc2(x)))
        return self.out(x)


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = QATMLP()
    ddp = DDP(torch.compile(model))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(11 + rank)
    for step in range(5):
        x = torch.randn(16, 32, generator=g)
        y = torch.randint(0, 5, (16,), generator=g)
        loss = F.cross_entropy(ddp(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
