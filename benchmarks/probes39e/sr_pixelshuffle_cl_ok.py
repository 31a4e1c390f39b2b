# ESPCN-style x2 super-resolution: conv trunk + PixelShuffle, plus a bilinear
# nn.Upsample skip; channels_last weights and inputs, a few training steps.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ESPCN(nn.Module):
    def __init__(self, scale=2):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 5, padding=2), nn.Tanh(),
            nn.Conv2d(32, 16, 3, padding=1), nn.Tanh(),
            nn.Conv2d(16, 3 * scale * scale, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)
        self.up = nn.Upsample(scale_factor=scale, mode="bilinear", align_corners=False)

    def forward(self, lr):
        return self.up(lr) + self.shuffle(self.body(lr))


torch.manual_seed(0)
model = ESPCN().to(memory_format=torch.channels_last)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
cmodel = torch.compile(model)
hr = torch.rand(4, 3, 32, 32)
lr = F.avg_pool2d(hr, 2).contiguous(memory_format=torch.channels_last)
for step in range(4):
    sr = cmodel(lr)
    loss = F.mse_loss(sr, hr)
    opt.zero_grad()
    loss.backward()
    opt.step()
    psnr = 10 * torch.log10(1.0 / loss.detach())
    print(step, round(loss.item(), 5), round(psnr.item(), 3))
print("out", tuple(sr.shape), sr.is_contiguous(memory_format=torch.channels_last))
