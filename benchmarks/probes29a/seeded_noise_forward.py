import torch
import torch.nn as nn

torch.manual_seed(0)


class NoisyDenoiser(nn.Module):
    """Adds reproducible noise per sample index so validation is deterministic."""

    def __init__(self, d=48):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 128), nn.SiLU(), nn.Linear(128, d))

    def forward(self, clean, seed):
        torch.manual_seed(seed)
        noisy = clean + 0.1 * torch.randn_like(clean)
        return self.net(noisy)


model = NoisyDenoiser()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.randn(64, 48)
for step in range(6):
    pred = cmodel(data, 1234)
    loss = (pred - data).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} mse {loss.item():.5f}")
