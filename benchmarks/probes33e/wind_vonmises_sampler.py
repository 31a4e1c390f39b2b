import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import VonMises

torch.manual_seed(0)


class WindDirectionHead(nn.Module):
    def __init__(self, n_features=6, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_features, hidden), nn.Tanh())
        self.loc_xy = nn.Linear(hidden, 2)
        self.log_kappa = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        xy = self.loc_xy(h)
        loc = torch.atan2(xy[:, 1], xy[:, 0])
        kappa = F.softplus(self.log_kappa(h)).squeeze(-1) + 0.1
        return loc, kappa


@torch.compile
def sample_directions(model, x, n_draws):
    loc, kappa = model(x)
    draws = VonMises(loc, kappa).sample((n_draws,))
    return torch.remainder(draws, 2 * math.pi)


model = WindDirectionHead()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
features = torch.randn(256, 6)
angles = torch.remainder(features[:, 0] + 0.3 * features[:, 1], 2 * math.pi)
for epoch in range(20):
    loc, kappa = model(features)
    loss = -VonMises(loc, kappa).log_prob(angles).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"train nll {loss.item():.3f}")

with torch.no_grad():
    for hour in range(3):
        station_feats = torch.randn(16, 6)
        draws = sample_directions(model, station_feats, 200)
        print(f"hour {hour}: mean direction {draws.mean().item():.3f} rad, spread {draws.std().item():.3f}")
