"""The "compiled optimizer + LR scheduler" recipe on CUDA, done right.

AdamW's step is compiled on its own; the learning rate is a tensor, so the LambdaLR warmup +
cosine schedule writes the new value into it (fill_) instead of a new Python float.
"""
import math

import torch

torch.manual_seed(0)
device = "cuda"
model = torch.nn.Sequential(
    torch.nn.Linear(512, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 512), torch.nn.GELU(),
    torch.nn.Linear(512, 10),
).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(1e-3), weight_decay=0.05)
total, warmup = 16, 4
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: (s + 1) / warmup if s < warmup else 0.5 * (1 + math.cos(math.pi * s / total))
)


@torch.compile(fullgraph=False)
def opt_step():
    opt.step()


x = torch.randn(256, 512, device=device)
y = torch.randint(0, 10, (256,), device=device)
for step in range(total):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt_step()
    sched.step()
    opt.zero_grad(set_to_none=True)
    print("step", step, "loss", round(loss.item(), 4), "lr", float(opt.param_groups[0]["lr"]))
