"""DDP fine-tuning of an MLP classifier on the CPU (gloo, 2 ranks), the module compiled before
DDP wraps it, as PyTorch's DDP + torch.compile docs recommend. The user lowered
`bucket_cap_mb` below 1 MB so that the gradient all-reduces start earlier (a common
overlap-tuning tip for small models).

Source: pytorch/pytorch PR #121640 ("[DDP] make first bucket size equal to bucket_cap_mb if it
was set": DDP no longer keeps its 1 MiB first bucket when bucket_cap_mb is given) and
torch/_dynamo/backends/distributed.py (DDPOptimizer, which still defaults its first bucket to
dist._DEFAULT_FIRST_BUCKET_BYTES = 1 MiB and asserts first_bucket_cap <= bucket_bytes_cap);
pytorch/pytorch test/distributed/test_dynamo_distributed.py (DDP(torch.compile(m), bucket_cap_mb=...)).

Run: torchrun --standalone --nproc-per-node 2 ddp_small_bucket_cap.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def make_model():
    return nn.Sequential(
        nn.Linear(128, 512), nn.GELU(),
        nn.Linear(512, 512), nn.GELU(),
        nn.Linear(512, 10),
    )


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = make_model()
    ddp = DDP(torch.compile(model), bucket_cap_mb=0.5)
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)

    g = torch.Generator().manual_seed(100 + rank)
    for step in range(5):
        x = torch.randn(32, 128, generator=g)
        y = torch.randint(0, 10, (32,), generator=g)
        loss = F.cross_entropy(ddp(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}")

    w = model[0].weight.detach().clone()
    dist.all_reduce(w)
    if rank == 0:
        print("replicas in sync:", torch.allclose(w / 2, model[0].weight))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
