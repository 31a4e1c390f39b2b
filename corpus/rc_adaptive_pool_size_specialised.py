"""Recompile (size): probes46b multires_adaptive_pool_dynamic. An adaptive average pool to a
fixed output size, compiled with dynamic=True and fed images of several resolutions: Inductor's
lowering of `_adaptive_avg_pool2d` needs the input size as a constant, so each resolution
compiles again. The guard's origin is torch's lowering, not a branch of the program."""
import torch
import torch.nn as nn

head = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
pool = nn.AdaptiveAvgPool2d((2, 2))


@torch.compile(dynamic=True)
def features(x):
    return pool(head(x)).flatten(1)  # <- diagnosis


with torch.no_grad():
    for size in (8, 12, 16, 20):
        print(size, features(torch.rand(1, 3, size, size)).sum().item())
