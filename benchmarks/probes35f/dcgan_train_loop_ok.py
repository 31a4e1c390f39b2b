# DCGAN (PyTorch DCGAN tutorial, shrunk to 16x16): compiled generator and discriminator,
# the tutorial's alternating D / G updates with BCELoss and a fixed noise sample.
import torch
import torch.nn as nn

torch.manual_seed(0)
nz, ngf, ndf, nc = 16, 16, 16, 1


def weights_init(m):
    if m.__class__.__name__.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, input):
        return self.main(input)

class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, input):
        return self.main(input)


netG, netD = Generator(), Discriminator()
netG.apply(weights_init), netD.apply(weights_init)
G, D = torch.compile(netG), torch.compile(netD)
criterion = nn.BCELoss()
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
fixed_noise = torch.randn(4, nz, 1, 1)
real_label, fake_label = 1.0, 0.0

for i in range(6):
    real = torch.rand(8, nc, 16, 16) * 2 - 1
    netD.zero_grad()
    label = torch.full((8,), real_label)
    errD_real = criterion(D(real).view(-1), label)
    errD_real.backward()
    noise = torch.randn(8, nz, 1, 1)
    fake = G(noise)
    label.fill_(fake_label)
    errD_fake = criterion(D(fake.detach()).view(-1), label)
    errD_fake.backward()
    optD.step()
    netG.zero_grad()
    label.fill_(real_label)
    errG = criterion(D(fake).view(-1), label)
    errG.backward()
    optG.step()
    print(f"[{i}] Loss_D {(errD_real + errD_fake).item():.4f} Loss_G {errG.item():.4f}")
with torch.no_grad():
    sample = G(fixed_noise)
print(f"fixed sample mean {sample.mean().item():.4f} std {sample.std().item():.4f}")
