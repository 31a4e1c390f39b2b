import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class NTXentLoss(nn.Module):
    def __init__(self, temperature=0.5):
        super().__init__()
        self.temperature = temperature

    def forward(self, z1, z2):
        n = z1.shape[0]
        z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
        sim = z @ z.T / self.temperature
        self_mask = torch.eye(2 * n, dtype=torch.bool)
        sim = sim.masked_fill(self_mask, float("-inf"))
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return F.cross_entropy(sim, targets)


encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 32))
criterion = NTXentLoss()
model = torch.compile(encoder)
loss_fn = torch.compile(criterion)
opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
data = torch.randn(160, 64)

for epoch in range(3):
    criterion.temperature = 0.5 - 0.15 * epoch
    for i in range(0, 160, 48):
        x = data[i:i + 48]
        z1 = model(x + 0.2 * torch.randn_like(x))
        z2 = model(x + 0.2 * torch.randn_like(x))
        loss = loss_fn(z1, z2)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} temperature {criterion.temperature:.2f} loss {loss.item():.4f}")
