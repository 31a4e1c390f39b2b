# CutMix written as a compiled batch augmentation: the box centre is drawn with Python's
# random.randint inside the function (the usual rand_bbox helper, inlined), the patch comes
# from the batch rolled by one, and the label weight is the pasted area.
import random
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
torch.manual_seed(0)


@torch.compile
def cutmix(x, y, cy, cx, box=6):
    H, W = x.shape[-2:]
    x = x.clone()
    x[:, :, cy:cy + box, cx:cx + box] = x.roll(1, 0)[:, :, cy:cy + box, cx:cx + box]
    lam = 1.0 - box * box / (H * W)
    return x, y, y.roll(1, 0), lam


model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)

for it in range(5):
    x = torch.rand(8, 3, 16, 16)
    y = torch.randint(0, 4, (8,))
    cy = random.randint(0, 16 - 6)
    cx = random.randint(0, 16 - 6)
    xm, ya, yb, lam = cutmix(x, y, cy, cx)
    out = model(xm)
    loss = lam * F.cross_entropy(out, ya) + (1 - lam) * F.cross_entropy(out, yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {it} lam {lam:.4f} pasted {(xm != x).any(1).sum().item()} loss {loss.item():.4f}")
