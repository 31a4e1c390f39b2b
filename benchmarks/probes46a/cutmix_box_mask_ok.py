"""CutMix inside a compiled training step, written with a box *mask* (correct cousin).

Instead of turning the box corners into Python ints and slicing, the box is a
boolean mask built from broadcast comparisons, so every shape stays static and
nothing leaves the graph.  The partner image is the reversed batch (timm style).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SmallConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        )
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))


def box_mask(H, W, lam):
    cut_rat = torch.sqrt(1.0 - lam)
    cut_h, cut_w = (H * cut_rat).floor(), (W * cut_rat).floor()
    cy, cx = torch.randint(H, ()), torch.randint(W, ())
    y1, y2 = (cy - cut_h // 2).clamp(0, H), (cy + cut_h // 2).clamp(0, H)
    x1, x2 = (cx - cut_w // 2).clamp(0, W), (cx + cut_w // 2).clamp(0, W)
    ys = torch.arange(H).view(H, 1)
    xs = torch.arange(W).view(1, W)
    return (ys >= y1) & (ys < y2) & (xs >= x1) & (xs < x2)


model = SmallConvNet()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
beta = torch.distributions.Beta(torch.tensor(1.0), torch.tensor(1.0))


@torch.compile
def train_step(images, targets):
    _, _, H, W = images.shape
    lam = beta.sample()
    box = box_mask(H, W, lam)
    images = torch.where(box, images.flip(0), images)
    lam = 1 - box.float().mean()
    logits = model(images)
    return lam * F.cross_entropy(logits, targets) + (1 - lam) * F.cross_entropy(logits, targets.flip(0))


images = torch.randn(4, 16, 3, 32, 32)
labels = torch.randint(0, 10, (4, 16))
for step in range(4):
    loss = train_step(images[step], labels[step])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
