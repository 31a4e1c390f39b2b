"""Two-rank multi-task fine-tune with FSDP2 (fully_shard) and compiled blocks: each rank
trains one task; rank 1's task anneals a loss-scale knob (`aux_weight`) every step and
passes it to the compiled block as a Python float. Rank 0 passes a constant. Rank 1
recompiles the block every step (a Python float is a constant of the graph) and ends at the
recompile limit, running eagerly while rank 0 runs compiled."""
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo", timeout=timedelta(seconds=60))
rank = dist.get_rank()
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)

    def forward(self, x, aux_weight):
        return x + aux_weight * torch.tanh(self.fc(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(2)])
        self.head = nn.Linear(32, 1)

    def forward(self, x, aux_weight):
        for block in self.blocks:
            x = block(x, aux_weight)
        return self.head(x)


net = Net()
for block in net.blocks:
    fully_shard(block)
    block.compile()
fully_shard(net)
opt = torch.optim.SGD(net.parameters(), lr=0.01)

for step in range(10):
    aux_weight = 0.5 if rank == 0 else 0.5 * (0.9 ** step)
    x = torch.randn(8, 32)
    loss = net(x, aux_weight).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
print(f"rank {rank} loss {loss.item():.4f}")
dist.destroy_process_group()
