"""Relative-error regression: the loss divides by the target, so a helper
guards against near-zero targets. allow_in_graph keeps the helper out of
Dynamo's tracing so the loss stays one graph."""
import torch
import torch.nn as nn


@torch._dynamo.allow_in_graph
def safe_relative_error(pred, target):
    denom = target.abs()
    if (denom < 1e-3).any():
        denom = denom.clamp_min(1e-3)
    return ((pred - target) / denom).abs()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 32), nn.SiLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)


@torch.compile
def train_loss(x, y):
    pred = model(x).squeeze(-1)
    return safe_relative_error(pred, y).mean()


x = torch.randn(128, 6)
y = 3.0 + x[:, 0] - 0.5 * x[:, 1] ** 2
for epoch in range(6):
    loss = train_loss(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: mean relative error {loss.item():.4f}")
