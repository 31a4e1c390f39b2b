"""Probabilistic forecaster: per-series standardisation (NaN-safe), an MLP predicting the
10/50/90% quantiles, trained with the pinball loss."""
import torch
import torch.nn as nn

torch.manual_seed(0)
QUANTILES = (0.1, 0.5, 0.9)
CONTEXT, HORIZON = 48, 12


class QuantileMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("q", torch.tensor(QUANTILES))
        self.net = nn.Sequential(nn.Linear(CONTEXT, 64), nn.ReLU(), nn.Linear(64, HORIZON * len(QUANTILES)))

    def forward(self, context):
        mean = torch.nanmean(context, dim=1, keepdim=True)
        x = torch.nan_to_num(context - mean, nan=0.0)
        scale = x.abs().mean(dim=1, keepdim=True) + 1e-3
        out = self.net(x / scale).view(-1, HORIZON, len(QUANTILES))
        return out * scale.unsqueeze(-1) + mean.unsqueeze(-1)

    def pinball(self, pred, target):
        err = target.unsqueeze(-1) - pred
        return torch.maximum(self.q * err, (self.q - 1) * err).mean()


model = QuantileMLP()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)

t = torch.arange(CONTEXT + HORIZON, dtype=torch.float32)
for step in range(6):
    phase = torch.randint(0, 24, (64, 1))
    series = 5 + 3 * torch.sin(2 * torch.pi * (t + phase) / 24) + 0.5 * torch.randn(64, CONTEXT + HORIZON)
    context, target = series[:, :CONTEXT].clone(), series[:, CONTEXT:]
    context[torch.rand_like(context) < 0.03] = float("nan")
    loss = model.pinball(compiled(context), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} pinball={loss.item():.4f}")

with torch.no_grad():
    q = compiled(context[:2])
print("first series, next hour p10/p50/p90:", [round(v, 2) for v in q[0, 0].tolist()])
