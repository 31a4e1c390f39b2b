import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@torch.compile
def random_rotate(images, max_deg=15.0):
    n = images.size(0)
    angle = (torch.rand(n) * 2 - 1) * max_deg * math.pi / 180
    cos, sin = angle.cos(), angle.sin()
    zeros = torch.zeros_like(angle)
    theta = torch.stack([cos, -sin, zeros, sin, cos, zeros], dim=1).view(n, 2, 3)
    grid = F.affine_grid(theta, list(images.shape), align_corners=False)
    return F.grid_sample(images, grid, mode="bilinear", padding_mode="reflection", align_corners=False)


model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(16, 10),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(6):
    digits = torch.rand(32, 1, 28, 28)
    labels = torch.randint(0, 10, (32,))
    with torch.no_grad():
        augmented = random_rotate(digits)
    loss = F.cross_entropy(model(augmented), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} pixel mean {augmented.mean().item():.4f}")
