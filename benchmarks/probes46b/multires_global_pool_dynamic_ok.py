"""Multi-resolution inference with a small classifier compiled with dynamic=True (correct cousin).

Same program as multires_adaptive_pool_dynamic.py, but the head pools globally
(nn.AdaptiveAvgPool2d(1), as ResNet/EfficientNet do) and widens the last conv instead, so
no op needs the input resolution as a constant: one graph serves every resolution.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class SmallVGG(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 64, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(64, 64), nn.ReLU(inplace=True), nn.Linear(64, num_classes)
        )

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        return self.classifier(x)


def make_batches():
    # images arrive at whatever resolution the camera/thumbnailer produced
    sizes = [32, 40, 48, 56, 64, 72, 80, 88, 96]
    g = torch.Generator().manual_seed(1)
    return [torch.rand(2, 3, s, s, generator=g) for s in sizes]


def main():
    model = SmallVGG().eval()
    cmodel = torch.compile(model, dynamic=True)
    with torch.no_grad():
        for x in make_batches():
            logits = cmodel(x)
            pred = logits.argmax(-1).tolist()
            print(f"res {x.shape[-1]:3d}: pred {pred} max-logit {logits.max().item():.4f}")


if __name__ == "__main__":
    main()
