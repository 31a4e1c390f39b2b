"""Multi-scale training of a channels_last conv net (YOLO-style: a new square image size every
few batches) under bf16 autocast with cudnn.benchmark, compiled with dynamic=False "for speed".
"""
import random

import torch

random.seed(0)
torch.manual_seed(0)
device = "cuda"
torch.backends.cudnn.benchmark = True

model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 32, 3, 2, 1), torch.nn.BatchNorm2d(32), torch.nn.SiLU(),
    torch.nn.Conv2d(32, 64, 3, 2, 1), torch.nn.BatchNorm2d(64), torch.nn.SiLU(),
    torch.nn.Conv2d(64, 128, 3, 2, 1), torch.nn.BatchNorm2d(128), torch.nn.SiLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(128, 20),
).to(device).to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
cmodel = torch.compile(model, dynamic=False)
sizes = [320 + 32 * k for k in range(10)]  # 320 ... 608

for step in range(24):
    if step % 2 == 0:
        size = sizes[(step // 2) % len(sizes)]
    x = torch.randn(16, 3, size, size, device=device).to(memory_format=torch.channels_last)
    y = torch.randint(0, 20, (16,), device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(cmodel(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print("step", step, "size", size, "loss", round(loss.item(), 4))
