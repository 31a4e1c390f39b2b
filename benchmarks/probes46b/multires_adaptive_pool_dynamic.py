"""Multi-resolution inference with a VGG-style classifier compiled with dynamic=True.

The head uses nn.AdaptiveAvgPool2d((4, 4)) (VGG/AlexNet use (7, 7) / (6, 6)) so that any
input resolution maps to a fixed-size classifier input. The user compiled with
dynamic=True expecting one graph for every resolution. Source: pytorch/pytorch#159550
(Inductor's _adaptive_avg_pool2d lowering guard_int's the input H and W) and torchvision's
VGG head.
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
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
        )
        self.pool = nn.AdaptiveAvgPool2d((4, 4))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(inplace=True), nn.Linear(64, num_classes)
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
