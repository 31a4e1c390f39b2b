"""Serve a small image classifier to a camera feed whose batch size varies.

Compiled with dynamic=False so every other dimension stays specialised; only
the batch dimension is marked dynamic.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
classifier = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4),
    nn.Flatten(), nn.Linear(16 * 16, 64), nn.ReLU(), nn.Linear(64, 5),
).eval()
serve = torch.compile(classifier, dynamic=False)

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


def preprocess(frames_u8):
    return (frames_u8.float() / 255.0 - MEAN) / STD


batch_sizes = [8, 5, 12, 7, 9, 3, 11, 6, 10, 4]
gen = torch.Generator().manual_seed(1)
with torch.inference_mode():
    for i, n in enumerate(batch_sizes):
        frames = torch.randint(0, 256, (n, 3, 32, 32), dtype=torch.uint8, generator=gen)
        torch._dynamo.mark_dynamic(frames, 0)
        logits = serve(preprocess(frames))
        counts = torch.bincount(logits.argmax(1), minlength=5)
        print(f"request {i}: {n} frames, class counts {counts.tolist()}")
