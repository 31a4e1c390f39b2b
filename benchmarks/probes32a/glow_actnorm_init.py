import math
import torch
import torch.nn as nn

torch.manual_seed(0)


class ActNorm(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.log_scale = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    def forward(self, x):
        if self.initialized.item() == 0:
            with torch.no_grad():
                self.loc.copy_(-x.mean(dim=(0, 2, 3), keepdim=True))
                self.log_scale.copy_(-torch.log(x.std(dim=(0, 2, 3), keepdim=True) + 1e-6))
                self.initialized.fill_(1)
        logdet = x.shape[2] * x.shape[3] * self.log_scale.sum()
        return (x + self.loc) * torch.exp(self.log_scale), logdet


class FlowStep(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = ActNorm(channels)
        self.coupling = nn.Sequential(nn.Conv2d(channels // 2, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, channels, 3, padding=1))

    def forward(self, x):
        x, logdet = self.norm(x)
        a, b = x.chunk(2, dim=1)
        log_s, t = self.coupling(a).chunk(2, dim=1)
        log_s = torch.tanh(log_s)
        return torch.cat([a, b * torch.exp(log_s) + t], dim=1), logdet + log_s.sum(dim=(1, 2, 3))


class Glow(nn.Module):
    def __init__(self, channels=4, depth=4):
        super().__init__()
        self.steps = nn.ModuleList([FlowStep(channels) for _ in range(depth)])

    def forward(self, x):
        logdet = 0.0
        for step in self.steps:
            x, ld = step(x)
            logdet = logdet + ld
        log_pz = -0.5 * (x ** 2 + math.log(2 * math.pi)).sum(dim=(1, 2, 3))
        return -(log_pz + logdet).mean() / x[0].numel()


flow = Glow()
model = torch.compile(flow)
opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
data = torch.randn(256, 4, 8, 8) * 1.5 + 0.3
for epoch in range(3):
    for batch in data.split(64):
        loss = model(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} bits/dim {loss.item() / math.log(2):.4f}")
