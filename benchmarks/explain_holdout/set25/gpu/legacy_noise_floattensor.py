import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
device = "cuda"


class GaussianNoise(nn.Module):
    def __init__(self, sigma=0.1):
        super().__init__()
        self.sigma = sigma

    def forward(self, x):
        if not self.training:
            return x
        return x + torch.cuda.FloatTensor(x.size()).normal_(0, self.sigma)


class DenoisingAE(nn.Module):
    def __init__(self, dim=784, hidden=256):
        super().__init__()
        self.noise = GaussianNoise(0.2)
        self.enc = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, 64))
        self.dec = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, x):
        return self.dec(self.enc(self.noise(x)))


model = DenoisingAE().to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
compiled = torch.compile(model)

data = torch.rand(2048, 784, device=device)
for epoch in range(3):
    total = 0.0
    for batch in data.split(256):
        recon = compiled(batch)
        loss = F.mse_loss(recon, batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total / 8:.4f}")
