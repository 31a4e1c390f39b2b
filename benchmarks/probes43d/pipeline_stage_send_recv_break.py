"""Two-stage pipeline-parallel inference on 2 ranks (gloo), torchrun --nproc-per-node 2.

Rank 0 runs the first half of an MLP and sends the activations to rank 1,
which runs the second half and reports the predictions.  Each rank compiles
its own stage step, micro-batch by micro-batch (GPipe-style forward only).
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
RANK, WORLD = dist.get_rank(), dist.get_world_size()
HIDDEN, MICRO_BS, N_MICRO = 32, 8, 4

torch.manual_seed(0)
full = nn.Sequential(
    nn.Linear(16, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, HIDDEN), nn.GELU(),   # stage 0
    nn.Linear(HIDDEN, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, 5),                # stage 1
)
stage = full[:4] if RANK == 0 else full[4:]
stage.eval()


@torch.compile
def stage_step(x):
    if RANK == 0:
        act = stage(x)
        dist.send(act, dst=1)
        return act.norm()
    act = torch.empty(MICRO_BS, HIDDEN)
    dist.recv(act, src=0)
    return stage(act).softmax(dim=-1)


g = torch.Generator().manual_seed(42)
batch = torch.randn(N_MICRO * MICRO_BS, 16, generator=g)
with torch.no_grad():
    outs = [stage_step(mb) for mb in batch.split(MICRO_BS)]

if RANK == 1:
    probs = torch.cat(outs)
    print("predicted classes:", probs.argmax(dim=-1).tolist()[:16])
    print(f"mean max prob: {probs.max(dim=-1).values.mean().item():.4f}")
else:
    print("stage 0 activation norms:", [round(o.item(), 3) for o in outs])
dist.destroy_process_group()
