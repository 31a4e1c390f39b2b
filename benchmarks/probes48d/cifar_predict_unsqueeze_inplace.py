"""Serving a small CIFAR-style CNN classifier on CPU.

`predict` is the compiled entry point of the service: it accepts either one CHW image
(most requests) or an NCHW batch (bulk requests) and returns class probabilities.
For a single image it adds the batch dimension in place before running the model.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
CLASSES = ["plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(32, len(CLASSES))

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


model = SmallCNN().eval()


@torch.compile
def predict(img):
    if img.dim() == 3:
        img.unsqueeze_(0)
    logits = model(img)
    return logits.softmax(dim=-1)


requests = [torch.randn(3, 32, 32) for _ in range(8)] + [torch.randn(4, 3, 32, 32)]
with torch.no_grad():
    for i, img in enumerate(requests):
        probs = predict(img)
        top = probs.argmax(dim=-1).tolist()
        print(f"request {i}: shape {tuple(img.shape)} -> {[CLASSES[t] for t in top]} "
              f"p={probs.max(dim=-1).values.mean():.3f}")
