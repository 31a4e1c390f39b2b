# Throughput sweep of a small CNN over batch sizes.  The model is compiled with dynamic=False
# (image height/width must stay static for the fused conv kernels) and the batch dimension is
# marked dynamic with torch._dynamo.mark_dynamic so one graph serves the whole sweep.  But the
# mark is placed on the NCHW tensor, and the next line converts it to channels_last:
# .to(memory_format=...) returns a new tensor that carries no dynamic mark, so every batch size
# recompiles a new static graph.
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10),
).eval().to(memory_format=torch.channels_last)
cmodel = torch.compile(model, dynamic=False)

with torch.no_grad():
    for bs in (2, 4, 8, 16, 32, 64):
        images = torch.randn(bs, 3, 32, 32)
        torch._dynamo.mark_dynamic(images, 0)
        images = images.to(memory_format=torch.channels_last)
        logits = cmodel(images)
        print(f"batch {bs}: logits {tuple(logits.shape)} mean {logits.mean().item():.4f}")
