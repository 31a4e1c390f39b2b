"""Image-classifier serving loop on one GPU: the model is put in channels_last (faster convs on
tensor cores), compiled, and warmed up once before requests arrive so that no request pays for
compilation. Per-batch latency is printed."""
import time
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
torch.backends.cudnn.benchmark = True


def conv_bn(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


model = nn.Sequential(
    conv_bn(3, 32, 2), conv_bn(32, 64, 2), conv_bn(64, 128, 2), conv_bn(128, 256, 2),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 1000),
).to(device).eval().to(memory_format=torch.channels_last)
compiled = torch.compile(model)

with torch.no_grad():
    compiled(torch.randn(16, 3, 224, 224, device=device))  # warm-up: compile before serving
    torch.cuda.synchronize()

    for i in range(6):
        images = torch.rand(16, 3, 224, 224, device=device)
        batch = images.to(memory_format=torch.channels_last)
        t0 = time.perf_counter()
        labels = compiled(batch).argmax(dim=1)
        torch.cuda.synchronize()
        print(f"request {i}: {1000 * (time.perf_counter() - t0):8.1f} ms  top1 {labels[:4].tolist()}")
