import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
    nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10),
)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@torch.compile
def train_step(images, labels, scale):
    # multi-scale training: resize the batch by a random factor
    images = F.interpolate(images, scale_factor=scale, mode="bilinear", align_corners=False)
    logits = model(images)
    return F.cross_entropy(logits, labels)


for step in range(6):
    images = torch.randn(8, 3, 32, 32)
    labels = torch.randint(0, 10, (8,))
    scale = random.uniform(0.75, 1.25)
    loss = train_step(images, labels, scale)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} scale {scale:.3f} loss {loss.item():.4f}")
