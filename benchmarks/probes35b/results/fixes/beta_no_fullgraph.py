# Mixup as in facebookresearch/mixup-cifar10 (lam = np.random.beta(alpha, alpha)), moved into
# a train step compiled with fullgraph=True; the partner batch is the flipped batch (timm's
# 'pair' style) so no index is needed.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

np.random.seed(0)
torch.manual_seed(0)

model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def train_loss(x, y, alpha=0.2):
    lam = np.random.beta(alpha, alpha)
    mixed = lam * x + (1 - lam) * x.flip(0)
    out = model(mixed)
    loss = lam * F.cross_entropy(out, y) + (1 - lam) * F.cross_entropy(out, y.flip(0))
    return loss, lam


for it in range(4):
    x = torch.rand(8, 3, 16, 16)
    y = torch.randint(0, 4, (8,))
    loss, lam = train_loss(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {it} lam {float(lam):.3f} loss {loss.item():.4f}")
