import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
Z, X = 8, 24


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(Z, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, X))

    def forward(self, z):
        return self.body(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(X, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


def set_requires_grad(module, flag):
    for p in module.parameters():
        p.requires_grad_(flag)


G, D = Generator(), Discriminator()
G_c, D_c = torch.compile(G), torch.compile(D)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
data = torch.randn(1024, X) * 0.3 + torch.linspace(-1, 1, X)

for step in range(40):
    real = data[torch.randint(0, 1024, (64,))]
    fake = G_c(torch.randn(64, Z))
    set_requires_grad(D, True)
    d_loss = F.softplus(-D_c(real)).mean() + F.softplus(D_c(fake.detach())).mean()
    opt_d.zero_grad(set_to_none=True)
    d_loss.backward()
    opt_d.step()

    set_requires_grad(D, False)
    g_loss = F.softplus(-D_c(fake)).mean()
    opt_g.zero_grad(set_to_none=True)
    g_loss.backward()
    opt_g.step()
    if step % 10 == 9:
        print(f"step {step + 1} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f}")
with torch.no_grad():
    samples = G_c(torch.randn(512, Z))
print("sample mean error %.4f" % (samples.mean(0) - data.mean(0)).abs().mean().item())
