# VAE (pytorch/examples vae/main.py, shrunk): reparameterisation trick, BCE + KL loss,
# compiled model trained a few steps on random "images", then a decode of fixed z.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc21 = nn.Linear(32, 8)
        self.fc22 = nn.Linear(32, 8)
        self.fc3 = nn.Linear(8, 32)
        self.fc4 = nn.Linear(32, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


vae = VAE()
model = torch.compile(vae)
optimizer = torch.optim.Adam(vae.parameters(), lr=1e-3)
data = (torch.rand(64, 1, 8, 8) > 0.5).float()
for epoch in range(3):
    for batch in data.split(16):
        recon, mu, logvar = model(batch)
        loss = loss_function(recon, batch, mu, logvar)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss/sample {loss.item() / len(batch):.2f}")
with torch.no_grad():
    sample = vae.decode(torch.zeros(2, 8))
print("decoded mean", round(sample.mean().item(), 4))
