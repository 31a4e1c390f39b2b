"""Image-batch preprocessing compiled with the model's first stage: batches come from a loader
that may or may not pin memory, so the step checks and picks an async copy for pinned batches."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

MEAN = torch.tensor([0.485, 0.456, 0.406], device=device).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225], device=device).view(1, 3, 1, 1)
stem = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU()).to(device).eval()


@torch.compile
def preprocess_and_stem(batch_u8):
    if batch_u8.is_pinned():
        x = batch_u8.to(device, non_blocking=True)
    else:
        x = batch_u8.to(device)
    x = x.permute(0, 3, 1, 2).float().div(255.0)
    x = (x - MEAN) / STD
    return stem(x)


with torch.no_grad():
    for i in range(5):
        batch = torch.randint(0, 256, (32, 128, 128, 3), dtype=torch.uint8).pin_memory()
        feats = preprocess_and_stem(batch)
        print(f"batch {i}: features {tuple(feats.shape)} mean {feats.mean().item():.4f}")
