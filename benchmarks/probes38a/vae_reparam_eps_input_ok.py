# Small VAE trained for a few Adam steps with a compiled model. The
# reparameterisation noise is drawn outside the compiled forward and passed in,
# so compiled and eager see the same eps; loss = BCE reconstruction + KL.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, d=16, h=32, z=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.ReLU())
        self.mu = nn.Linear(h, z)
        self.logvar = nn.Linear(h, z)
        self.dec = nn.Sequential(nn.Linear(z, h), nn.ReLU(), nn.Linear(h, d))

    def forward(self, x, eps):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.exp(0.5 * logvar) * eps
        logits = self.dec(z)
        rec = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.shape[0]
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
        return rec + kl, rec, kl


model = VAE()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
data = (torch.rand(32, 16) > 0.5).float()
for step in range(5):
    x = data[step * 6:(step + 1) * 6]
    eps = torch.randn(x.shape[0], 4)
    loss, rec, kl = cmodel(x, eps)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step %d loss %.4f rec %.4f kl %.4f" % (step, loss.item(), rec.item(), kl.item()))
