import torch
import torch.nn as nn

torch.manual_seed(0)

classifier = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4),
).eval()
compiled_classifier = torch.compile(classifier)

TRANSFORMS = [
    lambda x: x,
    lambda x: x.flip(-1),
    lambda x: x.flip(-2),
    lambda x: x.flip(-1).flip(-2),
    lambda x: x.transpose(-1, -2),
    lambda x: x.transpose(-1, -2).flip(-1),
    lambda x: x.transpose(-1, -2).flip(-2),
    lambda x: x.transpose(-1, -2).flip(-1).flip(-2),
    lambda x: torch.roll(x, 1, dims=-1),
    lambda x: torch.roll(x, -1, dims=-1),
]



def view_probs(images, transform):
    return compiled_classifier(transform(images)).softmax(dim=-1)


def predict_tta(images):
    probs = torch.stack([view_probs(images, t) for t in TRANSFORMS])
    return probs.mean(0)


tiles = torch.randn(48, 1, 28, 28) * torch.linspace(0.5, 3.0, 48).view(48, 1, 1, 1)
with torch.no_grad():
    for batch in range(3):
        p = predict_tta(tiles[batch * 16:(batch + 1) * 16])
        print(f"batch {batch}: mean max-prob {p.max(-1).values.mean():.4f} classes {p.argmax(-1)[:6].tolist()}")
