"""Data augmentation in a compiled function: a random horizontal flip decided with Python's
random module (as many hand-written augmentation pipelines do), then normalisation."""
import random

import torch

random.seed(0)
torch.manual_seed(0)
MEAN, STD = 0.5, 0.25


@torch.compile
def augment(img, p=0.5):
    if random.random() < p:
        img = img.flip(-1)
    return (img - MEAN) / STD


imgs = torch.rand(6, 3, 8, 8)
outs = [augment(im) for im in imgs]
print("checksums:", [round(o[0, 0, 0].item(), 4) for o in outs])
print("next python draws:", [round(random.random(), 4) for _ in range(3)])
