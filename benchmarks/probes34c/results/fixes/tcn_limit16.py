"""Speech denoiser: a dilated TCN trained on synthetic noisy tones.

Regional compilation: each residual block is compiled on its own so a deeper
model does not mean one huge graph.
"""
import torch
import torch.nn as nn
torch._dynamo.config.recompile_limit = 16


class ResidualBlock(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, 3, padding=dilation, dilation=dilation)
        self.norm = nn.GroupNorm(4, channels)

    def forward(self, x):
        return x + torch.relu(self.norm(self.conv(x)))


class Denoiser(nn.Module):
    def __init__(self, channels=16, depth=10):
        super().__init__()
        self.inp = nn.Conv1d(1, channels, 1)
        self.blocks = nn.ModuleList([ResidualBlock(channels, 2 ** i) for i in range(depth)])
        self.out = nn.Conv1d(channels, 1, 1)
        for block in self.blocks:
            block.compile()

    def forward(self, wave):
        h = self.inp(wave)
        for block in self.blocks:
            h = block(h)
        return self.out(h)


torch.manual_seed(0)
model = Denoiser()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
t = torch.linspace(0, 1, 2048)
clean = torch.sin(2 * torch.pi * 40 * t).expand(4, 1, -1).contiguous()

for step in range(4):
    noisy = clean + 0.3 * torch.randn_like(clean)
    loss = nn.functional.mse_loss(model(noisy), clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
