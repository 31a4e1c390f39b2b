"""Correct program: batched inference of a small channels_last CNN under
mode="reduce-overhead" (CUDA graphs), with torch.compiler.cudagraph_mark_step_begin() called
outside the compiled function, before each call, and every output consumed (bincount of the
argmax) before the next replay overwrites it. TF32 is enabled for the float32 matmuls. One
graph, one CUDA-graph recording for the single input size, no break, no recompile."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
).to(device).to(memory_format=torch.channels_last).eval()


@torch.compile(mode="reduce-overhead")
def infer(x):
    return model(x).softmax(-1)


images = torch.randn(8, 32, 3, 32, 32, device=device)
counts = torch.zeros(10, dtype=torch.long, device=device)
with torch.no_grad():
    for i in range(8):
        x = images[i].contiguous(memory_format=torch.channels_last)
        torch.compiler.cudagraph_mark_step_begin()
        probs = infer(x)
        counts += torch.bincount(probs.argmax(-1), minlength=10)
print("predicted classes:", counts.tolist())
print("total:", int(counts.sum()))
