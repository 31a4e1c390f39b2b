import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
device = "cuda"


class VAE(nn.Module):
    def __init__(self, dim=784, hidden=400, latent=32, kl_warmup=1000):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, dim))
        self.kl_warmup = kl_warmup
        self.num_updates = 0

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        recon = self.dec(z)
        rec = F.binary_cross_entropy_with_logits(recon, x, reduction="sum") / x.shape[0]
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
        beta = min(1.0, self.num_updates / self.kl_warmup)
        if self.training:
            self.num_updates += 1
        return rec + beta * kl, rec, kl


model = VAE().to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
train_step = torch.compile(model)

data = torch.rand(4096, 784, device=device)
for epoch in range(2):
    for i, batch in enumerate(data.split(256)):
        loss, rec, kl = train_step(batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.2f} rec {rec.item():.2f} kl {kl.item():.2f}")
