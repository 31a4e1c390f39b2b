"""FSDP2 at 2 ranks, each block compiled on its own (torchtitan's per-block compile, PyTorch's
test/distributed/_composable/fsdp/test_fully_shard_compile.py): every Block shares one
`forward` code object, so the second block's call (an activation that requires grad) fails the
first block's guard (the batch does not) and recompiles once, on each rank.

    torchrun --standalone --nproc-per-node 2 --no-python compdiag run corpus/ranks/fsdp2_block_compile.py
    compdiag explain --job
"""
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo")
mesh = init_device_mesh("cpu", (dist.get_world_size(),))
torch.manual_seed(0)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(32, 32)

    def forward(self, x):
        return torch.relu(self.lin(x)) + x


model = torch.nn.Sequential(Block(), Block())
for blk in model:
    fully_shard(blk, mesh=mesh)
    blk.compile()
fully_shard(model, mesh=mesh)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 32)).sum()  # <- diagnosis
    loss.backward()
    opt.step()
    opt.zero_grad()
print("ok", dist.get_rank(), float(loss.detach()))
dist.destroy_process_group()
