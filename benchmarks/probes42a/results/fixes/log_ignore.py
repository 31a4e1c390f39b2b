"""Regression MLP whose compiled loss function logs metrics every LOG_EVERY steps.

The loss function is compiled with fullgraph=True. Steps 1..24 run fine; at step 25 the
`step % LOG_EVERY == 0` guard fails, Dynamo recompiles, and the new trace reaches the
logger call in the logging helper, which fullgraph=True cannot graph-break on. The run
dies late, after 24 good steps.
"""
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LOG_EVERY = 25
history = []
logging.basicConfig(level=logging.INFO, format="%(message)s")
log = logging.getLogger("train")
torch._dynamo.config.ignore_logging_functions.add(log.info)


class MLP(nn.Module):
    def __init__(self, d_in=16, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(),
                                 nn.Linear(hidden, hidden), nn.GELU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def log_metrics(step, loss, pred, target):
    mae = (pred - target).abs().mean()
    rec = {"step": step, "loss": loss.item(), "mae": mae.item()}
    log.info("step %d  loss %.4f  mae %.4f", step, rec["loss"], rec["mae"])
    history.append(rec)


model = MLP()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
w_true = torch.randn(16)


@torch.compile(fullgraph=True)
def compute_loss(x, y, step):
    pred = model(x)
    loss = F.smooth_l1_loss(pred, y)
    if step % LOG_EVERY == 0:
        log_metrics(step, loss, pred, y)
    return loss


def batch():
    x = torch.randn(128, 16)
    y = x @ w_true + 0.1 * torch.randn(128)
    return x, y


for step in range(1, 61):
    x, y = batch()
    loss = compute_loss(x, y, step)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")

for rec in history:
    print(f"step {rec['step']:3d}  loss {rec['loss']:.4f}  mae {rec['mae']:.4f}")
print("done", len(history), "log records")
