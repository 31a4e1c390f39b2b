"""Small VAE on synthetic 2-D mixtures with a weighted multi-term objective.

The compiled objective gets the individual loss terms as a dict and the
term weights as `LOSS_WEIGHTS.items()`, so the weighting stays configurable.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

LOSS_WEIGHTS = {"recon": 1.0, "kl": 0.1, "latent_l2": 0.01}


class VAE(nn.Module):
    def __init__(self, d_in=8, d_hid=32, d_z=2):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, d_hid), nn.Tanh())
        self.mu = nn.Linear(d_hid, d_z)
        self.logvar = nn.Linear(d_hid, d_z)
        self.dec = nn.Sequential(nn.Linear(d_z, d_hid), nn.Tanh(), nn.Linear(d_hid, d_in))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar, z


@torch.compile
def objective(terms, weight_items):
    total = torch.zeros(())
    for name, w in weight_items.items():
        total = total + w * terms[name]
    return total


def make_batch(bs=128, d_in=8):
    comp = torch.randint(0, 3, (bs, 1)).float()
    base = torch.linspace(-1, 1, d_in)
    return comp * base + 0.1 * torch.randn(bs, d_in)


def main():
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for step in range(80):
        x = make_batch()
        recon, mu, logvar, z = model(x)
        terms = {
            "recon": F.mse_loss(recon, x),
            "kl": -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp()),
            "latent_l2": z.pow(2).mean(),
        }
        loss = objective(terms, LOSS_WEIGHTS)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"step {step:3d} loss {loss.item():.4f} recon {terms['recon'].item():.4f}")
    print(f"final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
