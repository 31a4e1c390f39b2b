import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class UNet1d(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.enc1 = nn.Conv1d(1, ch, 7, padding=3)
        self.enc2 = nn.Conv1d(ch, 2 * ch, 7, stride=2, padding=3)
        self.dec1 = nn.Conv1d(3 * ch, ch, 7, padding=3)
        self.out = nn.Conv1d(ch, 1, 1)

    def forward(self, wave):
        s1 = F.gelu(self.enc1(wave))
        s2 = F.gelu(self.enc2(s1))
        up = F.interpolate(s2, size=s1.shape[-1], mode="linear", align_corners=False)
        h = F.gelu(self.dec1(torch.cat([up, s1], dim=1)))
        return wave + self.out(h)


model = UNet1d()
denoise = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)

for step, length in enumerate([4000, 3600, 4410, 3000, 4800, 3900]):
    clean = torch.sin(torch.linspace(0, 200, length)).repeat(4, 1, 1)
    noisy = clean + 0.3 * torch.randn_like(clean)
    noisy = F.pad(noisy, (8, 8), mode="reflect")
    loss = F.l1_loss(denoise(noisy)[..., 8:-8], clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} len {length} l1 {loss.item():.4f}")
