"""CUDA graphs skipped (GPU): the compiled function mutates its input in place."""
import torch


def accumulate(buf, x):
    buf.add_(x)  # <- diagnosis
    return buf * 2


f = torch.compile(accumulate, mode="reduce-overhead")
buf = torch.zeros(16, device="cuda")
for _ in range(3):
    f(buf, torch.randn(16, device="cuda"))
torch.cuda.synchronize()
print("ok")
