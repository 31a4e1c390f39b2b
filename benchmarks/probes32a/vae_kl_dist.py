import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, x_dim=64, z_dim=8, hidden=128):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, hidden), nn.ReLU(), nn.Linear(hidden, 2 * z_dim))
        self.dec = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, x_dim))

    def forward(self, x):
        mu, log_var = self.enc(x).chunk(2, dim=-1)
        q = Normal(mu, torch.exp(0.5 * log_var))
        z = q.rsample()
        recon = self.dec(z)
        prior = Normal(torch.zeros_like(mu), torch.ones_like(mu))
        kl = kl_divergence(q, prior).sum(-1).mean()
        return recon, kl


model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
compiled = torch.compile(model)
data = torch.rand(256, 64)
for epoch in range(6):
    for batch in data.split(64):
        recon, kl = compiled(batch)
        loss = F.mse_loss(recon, batch, reduction="sum") / batch.shape[0] + kl
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.3f} kl {kl.item():.3f}")
