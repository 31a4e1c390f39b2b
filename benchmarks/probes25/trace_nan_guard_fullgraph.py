"""A compiled training step with fullgraph=True that skips the update when the loss is not
finite (an AMP-style overflow guard written as a Python if). Recorded with a plain TORCH_TRACE run."""
import torch
import torch.nn as nn


model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile(fullgraph=True)
def loss_fn(x, y):
    loss = nn.functional.mse_loss(model(x), y)
    if not torch.isfinite(loss):
        loss = torch.zeros_like(loss)
    return loss


for step in range(5):
    x, y = torch.randn(8, 16), torch.randn(8, 1)
    loss = loss_fn(x, y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(step, float(loss))
