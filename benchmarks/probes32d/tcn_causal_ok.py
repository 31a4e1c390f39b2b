"""Temporal convolutional network (weight-normalised causal dilated convs) trained on
fixed-size windows cut from one long series with unfold."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import weight_norm

torch.manual_seed(0)


class CausalBlock(nn.Module):
    def __init__(self, channels, dilation, kernel=3):
        super().__init__()
        self.left_pad = (kernel - 1) * dilation
        self.conv = weight_norm(nn.Conv1d(channels, channels, kernel, dilation=dilation))

    def forward(self, x):
        return F.relu(self.conv(F.pad(x, (self.left_pad, 0)))) + x


class TCN(nn.Module):
    def __init__(self, channels=16):
        super().__init__()
        self.inp = nn.Conv1d(1, channels, 1)
        self.blocks = nn.Sequential(*[CausalBlock(channels, d) for d in (1, 2, 4, 8)])
        self.out = nn.Conv1d(channels, 1, 1)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


series = torch.sin(torch.linspace(0, 80, 4096)) + 0.1 * torch.randn(4096)
windows = series.unfold(0, 129, 32)  # (n_windows, 129)

model = TCN()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)

for epoch in range(3):
    perm = torch.randperm(windows.shape[0])
    for i in range(0, 96, 32):
        w = windows[perm[i:i + 32]].unsqueeze(1)
        loss = F.mse_loss(compiled(w[..., :-1]), w[..., 1:])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} mse={loss.item():.5f}")
