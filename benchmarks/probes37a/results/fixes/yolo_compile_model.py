# YOLOv5-style warmup: during the first iterations lr and momentum are ramped with
# np.interp and written into the optimizer's param_groups; opt.step is compiled.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(12, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True, weight_decay=5e-4)
cmodel = torch.compile(model)
loss_fn = nn.CrossEntropyLoss()

x = torch.randn(128, 12)
y = torch.randint(0, 3, (128,))
warmup_iters = 8
lr0, warmup_momentum, momentum = 0.01, 0.8, 0.937

for ni in range(10):
    if ni <= warmup_iters:
        xi = [0, warmup_iters]
        for g in opt.param_groups:
            g["lr"] = np.interp(ni, xi, [0.0, lr0])
            g["momentum"] = np.interp(ni, xi, [warmup_momentum, momentum])
    loss = loss_fn(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"iter {ni} lr {float(opt.param_groups[0]['lr']):.5f} loss {loss.item():.4f}")
