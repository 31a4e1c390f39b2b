import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyFPNSeg(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.c3 = nn.Sequential(nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU())
        self.lat2 = nn.Conv2d(32, 32, 1)
        self.lat3 = nn.Conv2d(64, 32, 1)
        self.lat1 = nn.Conv2d(16, 32, 1)
        self.head = nn.Conv2d(32, num_classes, 3, padding=1)

    def forward(self, x):
        f1 = self.c1(x)
        f2 = self.c2(f1)
        f3 = self.c3(f2)
        p3 = self.lat3(f3)
        p2 = self.lat2(f2) + F.interpolate(p3, scale_factor=2, mode="nearest")
        p1 = self.lat1(f1) + F.interpolate(p2, scale_factor=2, mode="nearest")
        return self.head(p1)


model = TinyFPNSeg().eval()
compiled = torch.compile(model)

with torch.no_grad():
    for i, (h, w) in enumerate([(128, 160), (96, 128), (160, 224), (112, 144)]):
        image = torch.rand(1, 3, h, w)
        torch._dynamo.mark_dynamic(image, 2)
        torch._dynamo.mark_dynamic(image, 3)
        masks = compiled(image).argmax(dim=1)
        classes = masks.flatten().bincount(minlength=5)
        print(f"image {i} {h}x{w}: pixels per class {classes.tolist()}")
