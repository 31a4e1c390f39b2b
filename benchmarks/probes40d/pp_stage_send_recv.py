# Two-stage pipeline-parallel inference: rank 0 runs the first half of an MLP and sends the
# activations to rank 1, which receives them and runs the second half. The whole per-rank stage
# (compute + point-to-point transfer) is compiled as one function.
# Run: torchrun --standalone --nproc-per-node 2 pp_stage_send_recv.py
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
B, D, H = 16, 32, 64

torch.manual_seed(0)
full = nn.Sequential(nn.Linear(D, H), nn.GELU(), nn.Linear(H, H), nn.GELU(), nn.Linear(H, 4))
stage = full[:2] if rank == 0 else full[2:]  # each rank keeps its half


@torch.compile
def run_stage(x):
    if rank == 0:
        h = stage(x)
        dist.send(h, dst=1)
        return h
    h = torch.empty(B, H)
    dist.recv(h, src=0)
    return stage(h)


torch.manual_seed(1)
with torch.no_grad():
    for mb in range(4):
        x = torch.randn(B, D)
        out = run_stage(x)
        if rank == 1:
            ref = full(x)
            print(f"microbatch {mb}: out {tuple(out.shape)} max|diff| {float((out - ref).abs().max()):.2e}")
dist.destroy_process_group()
