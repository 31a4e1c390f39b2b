"""FSDP2 (`fully_shard`) with each block compiled (PyTorch's
test/distributed/_composable/fsdp/test_fully_shard_compile.py, torchtitan's per-block compile),
plus the "evaluate on the master process only" habit of DDP scripts (karpathy/build-nanogpt#99,
https://github.com/karpathy/build-nanogpt/pull/99: validation run by rank 0 alone), as a real
two-rank job on gloo.

Under FSDP2 a forward is collective: each block all-gathers its parameters. Rank 0 alone runs a
validation forward under `torch.no_grad()` after step 1; its compiled blocks recompile for it
(the guard on grad_mode), and its extra forward's all-gathers pair with rank 1's next training
forward. From then on the ranks issue different collectives: rank 1's backward waits in a
reduce-scatter, rank 0's backward in an all-gather, and both time out after 20 s (gloo "Timed
out waiting 20000ms"). The cause is the rank-0-only evaluation call.

    python -m torch.distributed.run --nproc-per-node 2 fsdp2_rank0_eval_timeout.py
"""
import datetime

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
mesh = init_device_mesh("cpu", (2,))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 16)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
model = torch.nn.Sequential(Block(), Block(), torch.nn.Linear(16, 4))
for block in model[:2]:
    block.compile()
    fully_shard(block, mesh=mesh)
fully_shard(model, mesh=mesh)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
val = torch.randn(16, 16)

torch.manual_seed(rank)
for step in range(4):
    loss = model(torch.randn(8, 16)).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
    if step == 1 and rank == 0:
        model.eval()
        with torch.no_grad():
            val_loss = model(val).pow(2).mean()
        model.train()
        print(f"rank {rank} val {val_loss.item():.4f}", flush=True)
dist.destroy_process_group()
