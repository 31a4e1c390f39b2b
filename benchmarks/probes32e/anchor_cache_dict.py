import torch
import torch.nn as nn

torch.manual_seed(0)


class AnchorGenerator(nn.Module):
    def __init__(self, stride=8, sizes=(16.0, 32.0, 64.0)):
        super().__init__()
        self.stride = stride
        self.sizes = torch.tensor(sizes)
        self._cache = {}

    def forward(self, feats):
        fh, fw = feats.shape[-2:]
        key = (fh, fw)
        if key not in self._cache:
            ys = (torch.arange(fh) + 0.5) * self.stride
            xs = (torch.arange(fw) + 0.5) * self.stride
            cy, cx = torch.meshgrid(ys, xs, indexing="ij")
            centers = torch.stack([cx, cy, cx, cy], dim=-1).reshape(-1, 1, 4)
            half = self.sizes.view(1, -1, 1) / 2
            offsets = torch.cat([-half, -half, half, half], dim=-1)
            self._cache[key] = (centers + offsets).reshape(-1, 4)
        return self._cache[key]


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.anchors = AnchorGenerator()
        self.reg = nn.Conv2d(32, 3 * 4, 1)

    def forward(self, images):
        feats = self.backbone(images)
        anchors = self.anchors(feats)
        deltas = self.reg(feats).permute(0, 2, 3, 1).reshape(images.size(0), -1, 4)
        return anchors + deltas * 4.0


model = torch.compile(Detector().eval())
sizes = [(96, 128), (128, 96), (112, 160), (160, 112), (96, 96), (128, 128),
         (144, 96), (96, 144), (120, 160), (160, 120), (96, 128), (128, 96)]
with torch.no_grad():
    for i, (h, w) in enumerate(sizes):
        boxes = model(torch.rand(1, 3, h, w))
        print(f"image {i} {h}x{w}: {boxes.shape[1]} boxes, mean width {(boxes[0, :, 2] - boxes[0, :, 0]).mean():.2f}")
