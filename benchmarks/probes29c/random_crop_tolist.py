import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

CROP = 24


@torch.compile(fullgraph=True)
def augment(images):
    # random crop + horizontal flip, all in torch so it runs in the compiled graph
    top, left = torch.randint(0, images.size(-1) - CROP + 1, (2,)).tolist()
    images = images[..., top:top + CROP, left:left + CROP]
    flip = torch.rand(images.size(0), 1, 1, 1) < 0.5
    return torch.where(flip, images.flip(-1), images)


model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(16, 10),
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(5):
    images = torch.randn(16, 3, 32, 32)
    labels = torch.randint(0, 10, (16,))
    crops = augment(images)
    loss = F.cross_entropy(model(crops), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} crop {tuple(crops.shape)} loss {loss.item():.4f}")
