# Inference with preprocessing on tensors inside the compiled step: downscale the camera
# frames with antialiasing (as torchvision's Resize(antialias=AA) does), normalize, classify.
import time, sys
AA = sys.argv[1] == "1"
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

net = nn.Sequential(
    nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10),
).eval()


@torch.compile
def predict(frames_u8):
    x = frames_u8.float() / 255.0
    x = F.interpolate(x, size=(64, 64), mode="bilinear", antialias=AA, align_corners=False)
    x = (x - MEAN) / STD
    return net(x).softmax(-1)


frames = torch.randint(0, 256, (8, 3, 240, 320), dtype=torch.uint8)
with torch.no_grad():
    predict(frames)
    t0 = time.perf_counter()
    for _ in range(20):
        probs = predict(frames)
    dt = time.perf_counter() - t0
print("top1", probs.argmax(-1).tolist())
print("p", [round(v, 4) for v in probs.max(-1).values.tolist()])
print("AA", AA, "ms/batch", round(dt / 20 * 1000, 2))
