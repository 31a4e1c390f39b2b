import torch
import torch.nn as nn

torch.manual_seed(0)
NZ = 32

generator = nn.Sequential(
    nn.ConvTranspose2d(NZ, 64, 4, 1, 0, bias=False), nn.BatchNorm2d(64), nn.ReLU(True),
    nn.ConvTranspose2d(64, 32, 4, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(True),
    nn.ConvTranspose2d(32, 3, 4, 2, 1, bias=False), nn.Tanh(),
)
discriminator = nn.Sequential(
    nn.Conv2d(3, 32, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
    nn.Conv2d(32, 64, 4, 2, 1, bias=False), nn.BatchNorm2d(64), nn.LeakyReLU(0.2, True),
    nn.Conv2d(64, 1, 4, 1, 0, bias=False), nn.Flatten(),
)
generator.compile()
discriminator.compile()

bce = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
real_images = torch.rand(128, 3, 16, 16) * 2 - 1

for step, real in enumerate(real_images.split(32)):
    fake = generator(torch.randn(32, NZ, 1, 1))
    d_loss = bce(discriminator(real), torch.ones(32, 1)) + bce(discriminator(fake.detach()), torch.zeros(32, 1))
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()

    g_loss = bce(discriminator(fake), torch.ones(32, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"step {step} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f}")
