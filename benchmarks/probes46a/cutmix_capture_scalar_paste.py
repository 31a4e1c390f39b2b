"""CutMix inside a compiled training step (box paste as in clovaai/CutMix-PyTorch).

The first version of this script graph-broke on the ``.item()`` calls that turn
the box corners into Python ints, so the user followed the hint printed by
Dynamo and switched on ``capture_scalar_outputs``.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch._dynamo.config.capture_scalar_outputs = True  # "include .item() in the graph"
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


def rand_bbox(H, W, lam):
    cut_rat = torch.sqrt(1.0 - lam)
    cut_h, cut_w = (H * cut_rat).int(), (W * cut_rat).int()
    cy, cx = torch.randint(H, (1,)), torch.randint(W, (1,))
    y1 = (cy - cut_h // 2).clamp(0, H).item()
    y2 = (cy + cut_h // 2).clamp(0, H).item()
    x1 = (cx - cut_w // 2).clamp(0, W).item()
    x2 = (cx + cut_w // 2).clamp(0, W).item()
    return y1, y2, x1, x2


model = SmallConvNet()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
beta = torch.distributions.Beta(torch.tensor(1.0), torch.tensor(1.0))


@torch.compile
def train_step(images, targets):
    B, _, H, W = images.shape
    lam = beta.sample()
    perm = torch.randperm(B)
    y1, y2, x1, x2 = rand_bbox(H, W, lam)
    images = images.clone()
    images[:, :, y1:y2, x1:x2] = images[perm, :, y1:y2, x1:x2]
    lam = 1 - ((y2 - y1) * (x2 - x1) / (H * W))
    logits = model(images)
    return lam * F.cross_entropy(logits, targets) + (1 - lam) * F.cross_entropy(logits, targets[perm])


images = torch.randn(4, 16, 3, 32, 32)
labels = torch.randint(0, 10, (4, 16))
for step in range(4):
    loss = train_step(images[step], labels[step])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
