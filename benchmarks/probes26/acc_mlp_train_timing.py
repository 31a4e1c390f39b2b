"""A small MLP regression trained for 50 steps: the model compiled with torch.compile, the loss
a compiled plain function (smooth L1 plus an L2 penalty on the predictions), Adam outside."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.compile(nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 128),
                                    nn.GELU(), nn.Linear(128, 1)))


@torch.compile
def loss_fn(pred, target, penalty=1e-3):
    return F.smooth_l1_loss(pred, target) + penalty * pred.pow(2).mean()


opt = torch.optim.Adam(model.parameters(), lr=1e-3)
X = torch.randn(512, 32)
Y = (X[:, :4].sum(1, keepdim=True)).sin()
t0 = time.perf_counter()
for step in range(50):
    idx = torch.randint(0, 512, (64,))
    loss = loss_fn(model(X[idx]), Y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0 or step == 49:
        print(f"step {step:2d} loss {loss.item():.5f}")
print(f"loop took {time.perf_counter() - t0:.1f}s", file=__import__('sys').stderr)
