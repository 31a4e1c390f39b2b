"""DDP training of a small CNN on the CPU (gloo, 2 ranks) with the module compiled and the
backward captured by compiled autograd, as the compiled autograd tutorial shows
(`torch._dynamo.compiled_autograd._enable(torch.compile(...))` around `loss.backward()`), to get
one backward graph with DDP's gradient all-reduces in it.

Source: PyTorch tutorial "Compiled Autograd: Capturing a larger backward graph for
torch.compile" (intermediate/compiled_autograd_tutorial); pytorch/pytorch issue #109774
("[DDP + Dynamo] Tracing DDP AllReduce (Compiled DDP)": set
torch._dynamo.config.optimize_ddp = "python_reducer" before wrapping) and PR #152735 ("C++
Reducer is silently incorrect under CA": now a hard error).

Run: torchrun --standalone --nproc-per-node 2 ddp_compiled_autograd_reducer.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.fc(x.mean((2, 3)))


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = SmallCNN()
    ddp = DDP(torch.compile(model))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    torch.compiler.set_stance("force_eager")

    g = torch.Generator().manual_seed(7 + rank)
    for step in range(4):
        x = torch.randn(8, 3, 16, 16, generator=g)
        y = torch.randint(0, 10, (8,), generator=g)
        loss = F.cross_entropy(ddp(x), y)
        opt.zero_grad(set_to_none=True)
        with torch._dynamo.compiled_autograd._enable(torch.compile(dynamic=False)):
            loss.backward()
        opt.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}")

    w = model.fc.weight.detach().clone()
    dist.all_reduce(w)
    if rank == 0:
        print("replicas in sync:", torch.allclose(w / 2, model.fc.weight))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
