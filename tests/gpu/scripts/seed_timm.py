# resnet50 / resnext101_32x8d from timm with random weights (no download), compiled end to end.
import sys

import timm
import torch

name = sys.argv[1]
model = timm.create_model(name, pretrained=False).cuda().eval()
opt = torch.compile(model)
x = torch.randn(4, 3, 224, 224, device="cuda")
with torch.no_grad():
    for _ in range(2):
        out = opt(x)
    ref = model(x)
torch.cuda.synchronize()
print(name, tuple(out.shape), float((out - ref).abs().max()))
