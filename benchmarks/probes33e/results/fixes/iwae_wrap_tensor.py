import math
import torch
import torch.nn as nn
from torch.distributions import Bernoulli, Normal

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, x_dim=32, z_dim=4, hidden=64):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, hidden), nn.ReLU(), nn.Linear(hidden, 2 * z_dim))
        self.dec = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, x_dim))

    def iwae_bound(self, x, k):
        mu, log_sigma = self.enc(x).chunk(2, dim=-1)
        q = Normal(mu, log_sigma.exp())
        z = q.rsample((k,))
        log_px_z = Bernoulli(logits=self.dec(z)).log_prob(x).sum(-1)
        log_pz = Normal(0.0, 1.0).log_prob(z).sum(-1)
        log_w = log_px_z + log_pz - q.log_prob(z).sum(-1)
        return (torch.logsumexp(log_w, dim=0) - math.log(k)).mean()


model = VAE()
bound = torch.compile(model.iwae_bound)
data = (torch.rand(512, 32) < 0.3).float()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    for batch in data.split(128):
        loss = -bound(batch, 5)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} iwae-5 {-loss.item():.3f}")

# test log-likelihood estimate as the number of importance samples grows
with torch.no_grad():
    test = data[:64]
    for k in [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]:
        print(f"k={k:5d} log p(x) >= {bound(test, torch.tensor(k)).item():.3f}")
