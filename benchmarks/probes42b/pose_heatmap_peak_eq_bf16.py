"""Keypoint heatmap decoding under CPU bf16 autocast, compiled.

A SimpleBaseline-style pose head (strided conv backbone + deconv head) predicts one
heatmap per keypoint.  The decoder turns each heatmap into a spatial softmax and takes
the hard peak as a mask `p == p.amax(...)` (the CenterNet `hmax == heat` idiom), then
reads the peak's (x, y) from a coordinate grid.  Inference runs under
torch.autocast("cpu", dtype=torch.bfloat16) for speed.
Source: pytorch/pytorch#195214 (fusion skips bf16 rounding before ==) and #128306
(CPU AMP discrepancy in detection post-processing), in a pose-estimation setting.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
NUM_KP = 6


class PoseNet(nn.Module):
    def __init__(self, k=NUM_KP):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
        )
        self.head = nn.Sequential(
            nn.ConvTranspose2d(32, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, k, 1),
        )
        nn.init.normal_(self.head[-1].weight, std=10.0)   # peaky heatmaps, like a trained head

    def forward(self, x):
        return self.head(self.backbone(x))


def decode(heat):
    n, k, h, w = heat.shape
    p = heat.flatten(2).softmax(-1)                  # spatial softmax per keypoint
    peak = p == p.amax(-1, keepdim=True)             # hard peak mask
    ys = torch.arange(h).repeat_interleave(w).to(p.dtype)
    xs = torch.arange(w).repeat(h).to(p.dtype)
    cnt = peak.sum(-1).float()
    x = (peak * xs).sum(-1).float() / cnt
    y = (peak * ys).sum(-1).float() / cnt
    return torch.stack([x, y], -1), p.amax(-1).float()


def predict(model, images):
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        heat = model(images)
        return decode(heat)


model = PoseNet().eval()
predict_c = torch.compile(predict)
for batch in range(3):
    images = torch.randn(4, 3, 64, 64)
    coords, conf = predict_c(model, images)
    valid = torch.isfinite(coords).all(-1).float().mean().item()
    print(f"batch {batch}: mean xy {coords.nanmean(dim=(0, 1)).tolist()} "
          f"valid keypoints {valid:.2f} mean conf {conf.mean().item():.5f}")
