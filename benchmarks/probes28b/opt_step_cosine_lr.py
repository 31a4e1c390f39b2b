"""Train a small MLP regressor; the optimizer step is compiled on its own (Adam's many small
per-parameter kernels fused), with a cosine learning-rate schedule."""
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20, eta_min=1e-4)


@torch.compile
def optimizer_step():
    opt.step()


X = torch.randn(256, 32)
w_true = torch.randn(32, 1)
Y = X @ w_true + 0.1 * torch.randn(256, 1)

for epoch in range(12):
    for i in range(0, 256, 64):
        xb, yb = X[i:i + 64], Y[i:i + 64]
        loss = nn.functional.mse_loss(model(xb), yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        optimizer_step()
    sched.step()
    print(f"epoch {epoch:2d} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.5f}")
