"""Batched inference of a small channels_last CNN under mode="reduce-overhead" (CUDA graphs).
The user read that CUDA-graph outputs are overwritten by the next replay unless a new step is
marked, and put torch.compiler.cudagraph_mark_step_begin() as the first line of the compiled
function. Dynamo does not trace it (torch.compiler is a skipped module), so every call breaks
the graph at that line: the call runs eagerly between two frames, and the model runs in the
resume function. The fix: call cudagraph_mark_step_begin() outside, before each compiled call."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
).to(device).to(memory_format=torch.channels_last).eval()


@torch.compile(mode="reduce-overhead")
def infer(x):
    torch.compiler.cudagraph_mark_step_begin()
    return model(x).softmax(-1)


images = torch.randn(8, 32, 3, 32, 32, device=device)
counts = torch.zeros(10, dtype=torch.long, device=device)
with torch.no_grad():
    for i in range(8):
        x = images[i].contiguous(memory_format=torch.channels_last)
        probs = infer(x)
        counts += torch.bincount(probs.argmax(-1), minlength=10)
print("predicted classes:", counts.tolist())
print("total:", int(counts.sum()))
