import random

import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)
CROP = 24


@torch.compile
def augment(images):
    top = random.randint(0, images.shape[2] - CROP)
    left = random.randint(0, images.shape[3] - CROP)
    crop = images[:, :, top:top + CROP, left:left + CROP]
    if random.random() < 0.5:
        crop = crop.flip(-1)
    return crop


net = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10),
)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
images = torch.randn(256, 3, 32, 32)
labels = torch.randint(0, 10, (256,))

for epoch in range(3):
    total = 0.0
    for i in range(0, 256, 64):
        x, y = images[i:i + 64], labels[i:i + 64]
        loss = nn.functional.cross_entropy(net(augment(x)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} mean loss {total / 4:.4f}")
