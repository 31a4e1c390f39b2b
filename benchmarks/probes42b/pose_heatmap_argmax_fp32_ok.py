"""(correct cousin) Keypoint heatmap decoding under CPU bf16 autocast, compiled.

Same SimpleBaseline-style pose head and bf16 autocast inference as
pose_heatmap_peak_eq_bf16.py, but the decoder follows the usual `get_max_preds` recipe:
it upcasts the heatmap to fp32 and takes the peak with argmax instead of comparing a
bf16 softmax with its own max.
Source: microsoft/human-pose-estimation.pytorch `get_max_preds` (argmax decoding).
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
    flat = heat.flatten(2).float()                   # decode in fp32, not bf16
    idx = flat.argmax(-1)                            # peak index per keypoint
    x = (idx % w).float()
    y = torch.div(idx, w, rounding_mode="floor").float()
    conf = flat.softmax(-1).amax(-1)
    return torch.stack([x, y], -1), conf


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
