from dataclasses import dataclass

import torch
import torch.nn as nn

torch.manual_seed(0)


@dataclass
class Batch:
    images: torch.Tensor
    labels: torch.Tensor
    weights: torch.Tensor


def make_batch(n):
    images = torch.randn(n, 3, 32, 32).contiguous(memory_format=torch.channels_last)
    labels = torch.randint(0, 5, (n,))
    weights = torch.where(labels == 4, 2.0, 1.0)
    return Batch(images, labels, weights)


net = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 5),
).to(memory_format=torch.channels_last)


@torch.compile
def weighted_loss(batch: Batch):
    logits = net(batch.images)
    per_sample = nn.functional.cross_entropy(logits.float(), batch.labels, reduction="none")
    return (per_sample * batch.weights).sum() / batch.weights.sum()


opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for step in range(6):
    batch = make_batch(32)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = weighted_loss(batch)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
