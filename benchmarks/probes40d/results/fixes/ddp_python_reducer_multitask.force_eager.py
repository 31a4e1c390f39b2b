# Multi-task DDP training with the "compiled DDP" setting optimize_ddp="python_reducer" (the
# recipe in pytorch/pytorch#109774). Each rank draws its task per step, so on a given step rank 0
# trains the "cls" head and rank 1 the "reg" head; find_unused_parameters=True is set for that.
# Run: torchrun --standalone --nproc-per-node 2 ddp_python_reducer_multitask.py
import datetime

import torch
import torch._dynamo
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

torch._dynamo.config.optimize_ddp = "python_reducer"
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank()


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(16, 32), nn.ReLU())
        self.heads = nn.ModuleDict({"cls": nn.Linear(32, 5), "reg": nn.Linear(32, 1)})

    def forward(self, x, task: str):
        return self.heads[task](self.trunk(x))


torch.manual_seed(0)
model = MultiTask()
ddp = DDP(model, find_unused_parameters=True)
cmodel = torch.compile(ddp)
torch.compiler.set_stance("force_eager")  # compdiag's suggested check
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)

torch.manual_seed(10 + rank)
for step in range(4):
    task = "cls" if (step + rank) % 2 == 0 else "reg"
    x = torch.randn(8, 16)
    loss = cmodel(x, task).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"rank {rank} step {step} task {task} loss {loss.item():.4f}", flush=True)

w = model.trunk[0].weight.detach().clone()
w0 = w.clone()
dist.broadcast(w0, 0)
print(f"rank {rank} trunk in sync: {torch.allclose(w, w0)}")
dist.destroy_process_group()
