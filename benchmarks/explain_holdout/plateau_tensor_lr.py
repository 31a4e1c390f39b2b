"""pytorch/pytorch#163093: ReduceLROnPlateau._reduce_lr sets param_group["lr"] to a float when
the optimizer was built with a tensor lr, which triggers a recompilation (CPU here)."""
import torch
from torch import nn, optim

model = nn.Linear(1, 1)
lr = torch.tensor(0.1)
opt = optim.Adam(model.parameters(), lr=lr)
scheduler = optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1, min_lr=0.001)


@torch.compile(fullgraph=False, backend="eager")
def fn(metric):
    opt.step()
    scheduler.step(metric)


total_steps = 8
fake_metrics = torch.linspace(1.0, 0.0, total_steps)
fake_metrics[3:6] = fake_metrics[3]
for metric in fake_metrics:
    fn(metric)
