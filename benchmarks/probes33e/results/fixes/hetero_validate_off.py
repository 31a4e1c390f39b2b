import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal

torch.manual_seed(0)


class HeteroscedasticNet(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.mean = nn.Linear(hidden, 1)
        self.raw_std = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mean(h), F.softplus(self.raw_std(h)) + 1e-3


def gaussian_nll(model, x, y):
    mu, sigma = model(x)
    # fail loudly if the network ever produces an invalid scale
    dist = Normal(mu, sigma, validate_args=False)
    return -dist.log_prob(y).mean()


x = torch.linspace(-3, 3, 512).unsqueeze(-1)
y = torch.sin(x) + (0.05 + 0.2 * x.abs()) * torch.randn_like(x)
model = HeteroscedasticNet()
loss_fn = torch.compile(gaussian_nll)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(8):
    for xb, yb in zip(x.split(64), y.split(64)):
        loss = loss_fn(model, xb, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} nll {loss.item():.4f}")
with torch.no_grad():
    mu, sigma = model(torch.tensor([[0.0], [2.5]]))
print("sigma at 0 and 2.5:", [round(v, 3) for v in sigma.squeeze(-1).tolist()])
