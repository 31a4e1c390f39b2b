import torch
import torch.nn as nn

torch.manual_seed(0)

STRIDE = 8
ANCHOR_SIZES = (16.0, 32.0, 64.0)


def make_anchors(feat_h, feat_w, device):
    anchors = []
    for y in range(feat_h):
        for x in range(feat_w):
            cx, cy = (x + 0.5) * STRIDE, (y + 0.5) * STRIDE
            for s in ANCHOR_SIZES:
                anchors.append([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2])
    return torch.tensor(anchors, device=device)


class SingleShotHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.reg = nn.Conv2d(32, len(ANCHOR_SIZES) * 4, 1)
        self.cls = nn.Conv2d(32, len(ANCHOR_SIZES), 1)

    def forward(self, images):
        feats = self.backbone(images)
        n, _, fh, fw = feats.shape
        anchors = make_anchors(fh, fw, images.device)
        deltas = self.reg(feats).permute(0, 2, 3, 1).reshape(n, -1, 4)
        scores = self.cls(feats).permute(0, 2, 3, 1).reshape(n, -1).sigmoid()
        boxes = anchors + deltas * 4.0
        return boxes, scores


model = torch.compile(SingleShotHead().eval())

# a folder of photos at their own sizes, fed one by one
sizes = [(96, 128), (128, 96), (112, 160), (160, 112), (96, 96), (128, 128),
         (144, 96), (96, 144), (120, 160), (160, 120)]
with torch.no_grad():
    for i, (h, w) in enumerate(sizes):
        image = torch.rand(1, 3, h, w)
        boxes, scores = model(image)
        best = scores[0].argmax()
        print(f"image {i} {h}x{w}: {boxes.shape[1]} anchors, best score {scores[0, best]:.4f}")
