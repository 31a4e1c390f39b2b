# A hyper-parameter sweep worker: trains a small regressor with a compiled loss step and early
# stopping. When patience runs out it writes its result line, flushes, and leaves with
# os._exit(0) so the launcher is not held up by interpreter teardown (a common pattern in
# sweep workers and multi-process jobs).
import os
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 24), nn.SiLU(), nn.Linear(24, 1))
opt = torch.optim.AdamW(model.parameters(), lr=3e-2, weight_decay=1e-3)
w_true = torch.randn(6, 1)
x_tr = torch.randn(64, 6)
y_tr = x_tr @ w_true + 0.3 * torch.randn(64, 1)
x_va = torch.randn(32, 6)
y_va = x_va @ w_true + 0.3 * torch.randn(32, 1)


@torch.compile
def loss_fn(x, y):
    return F.mse_loss(model(x), y)


best, bad_epochs, patience = float("inf"), 0, 3
for epoch in range(40):
    loss = loss_fn(x_tr, y_tr)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        val = F.mse_loss(model(x_va), y_va).item()
    print(f"epoch {epoch:2d} train {loss.item():.4f} val {val:.4f}")
    if val < best - 1e-3:
        best, bad_epochs = val, 0
    else:
        bad_epochs += 1
    if bad_epochs >= patience:
        print(f"early stop at epoch {epoch}, best val {best:.4f}")
        sys.stdout.flush()
        break
print("finished all epochs")
