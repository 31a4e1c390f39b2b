# Robust feature scaling for a tabular regressor: every epoch, features are clipped at their
# clip_q-th quantile (winsorized) before standardization. clip_q is annealed from 0.90 towards
# 0.995 over the epochs, as in curriculum-style outlier handling.
import torch
import torch.nn as nn

torch.manual_seed(0)


def winsorize_standardize(x, clip_q):
    hi = torch.quantile(x, clip_q, dim=0, keepdim=True)
    lo = torch.quantile(x, 1.0 - clip_q, dim=0, keepdim=True)
    x = torch.minimum(torch.maximum(x, lo), hi)
    return (x - x.mean(0)) / (x.std(0) + 1e-6)


scale = torch.compile(winsorize_standardize)
model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(256, 5)
x[::17] *= 25.0                       # heavy-tailed outliers
y = x[:, :1] * 0.5 - x[:, 1:2]

EPOCHS = 10
for epoch in range(EPOCHS):
    clip_q = 0.90 + 0.095 * epoch / (EPOCHS - 1)
    xs = scale(x, torch.tensor(clip_q))
    loss = nn.functional.mse_loss(model(xs), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} clip_q {clip_q:.4f} loss {loss.item():.4f}")
