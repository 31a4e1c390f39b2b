"""An evaluation step compiled with mode="reduce-overhead" returns the batch accuracy as a Python
float (`.item()` inside the compiled function) so the loop can sum it. With
capture_scalar_outputs=False Dynamo cannot put Tensor.item() in the graph and breaks there
("Unsupported Tensor.item() call with capture_scalar_outputs=False"): the step is split at the
line, each call syncs the device, and the CUDA graph covers only the part before the break. The
fix: return the count as a tensor and read it once after the loop."""
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                      nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).cuda().eval()


@torch.compile(mode="reduce-overhead")
def eval_step(images, labels):
    logits = model(images)
    correct = (logits.argmax(dim=1) == labels).sum().item()
    return logits, correct


total = 0
with torch.no_grad():
    for i in range(8):
        images = torch.randn(64, 3, 32, 32, device="cuda")
        labels = torch.randint(0, 10, (64,), device="cuda")
        logits, correct = eval_step(images, labels)
        total += correct
print("accuracy", total / (8 * 64))
