# Multi-scale test-time augmentation: run a small CNN classifier on the image rescaled
# by several scale factors and average the logits; the resize + model is compiled.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
    nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5),
).eval()


cnet = torch.compile(net)


def scaled_logits(img, scale):
    x = F.interpolate(img, scale_factor=scale, mode="bilinear", align_corners=False)
    return cnet(x)


SCALES = [0.75, 1.0, 1.25, 1.5, 1.75]
with torch.no_grad():
    for step in range(2):
        img = torch.randn(2, 3, 24, 24)
        logits = sum(scaled_logits(img, s) for s in SCALES) / len(SCALES)
        p = logits.softmax(-1)
        print(step, p.argmax(-1).tolist(), [round(v, 4) for v in p.max(-1).values.tolist()])
