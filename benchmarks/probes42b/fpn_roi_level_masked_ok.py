"""(correct cousin) Second stage of a two-stage detector: FPN multi-scale RoI pooling + box head, compiled.

Proposals are assigned to a pyramid level with the FPN paper's LevelMapper rule
(k = floor(4 + log2(sqrt(area) / 224)), clamped to P2..P5), then each level's proposals
are pooled with an affine-grid RoIAlign (grid_sample standing in for roi_align) and the
assigned level is kept with a mask `torch.where(levels == l, crop, pooled)` -- the
static-shape rewrite of torchvision.ops.poolers.MultiScaleRoIAlign's gather/scatter loop.
Source: torchvision/ops/poolers.py; pytorch/pytorch issues on compiling MultiScaleRoIAlign /
Mask R-CNN heads (data-dependent `torch.where(...)[0]`).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
IMG = 256.0


class TinyFPN(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, 4, 1), nn.ReLU())
        self.downs = nn.ModuleList([nn.Conv2d(c, c, 3, 2, 1) for _ in range(3)])

    def forward(self, x):
        feats = [self.stem(x)]                          # P2 (stride 4)
        for d in self.downs:                            # P3..P5
            feats.append(F.relu(d(feats[-1])))
        return feats


def roi_crop(feat, boxes, bidx, size):
    n = boxes.shape[0]
    x1, y1, x2, y2 = (boxes / IMG * 2 - 1).unbind(1)
    theta = boxes.new_zeros(n, 2, 3)
    theta[:, 0, 0] = (x2 - x1) / 2
    theta[:, 0, 2] = (x1 + x2) / 2
    theta[:, 1, 1] = (y2 - y1) / 2
    theta[:, 1, 2] = (y1 + y2) / 2
    grid = F.affine_grid(theta, [n, feat.shape[1], size, size], align_corners=False)
    return F.grid_sample(feat[bidx], grid, align_corners=False)


class BoxHead(nn.Module):
    def __init__(self, c=16, num_classes=5):
        super().__init__()
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(c * 7 * 7, 64), nn.ReLU(), nn.Linear(64, num_classes))

    def forward(self, feats, boxes, bidx):
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        levels = torch.floor(4 + torch.log2(area.sqrt() / 224 + 1e-6)).clamp(2, 5).long() - 2
        pooled = boxes.new_zeros(boxes.shape[0], feats[0].shape[1], 7, 7)
        for lvl, feat in enumerate(feats):
            # pool every proposal at every level and keep the assigned one: static shapes
            crop = roi_crop(feat, boxes, bidx, 7)
            pooled = torch.where((levels == lvl)[:, None, None, None], crop, pooled)
        return self.fc(pooled).softmax(-1)


def make_proposals(n, batch):
    xy = torch.rand(n, 2) * (IMG - 40)
    wh = torch.rand(n, 2) ** 2 * 200 + 8
    boxes = torch.cat([xy, (xy + wh).clamp(max=IMG)], 1)
    return boxes, torch.randint(0, batch, (n,))


backbone, head = TinyFPN().eval(), BoxHead().eval()
head_c = torch.compile(head)
with torch.no_grad():
    for step in range(3):
        images = torch.randn(2, 3, int(IMG), int(IMG))
        boxes, bidx = make_proposals(48, 2)
        scores = head_c(backbone(images), boxes, bidx)
        print(f"step {step}: {boxes.shape[0]} proposals, mean max score {scores.max(-1).values.mean().item():.4f}")
