"""CUDA graphs skipped (GPU): a CPU tensor input in a CUDA graph."""
import torch


def mix(x, table):  # <- diagnosis
    return x * 2 + table.sum()


f = torch.compile(mix, mode="reduce-overhead")
for _ in range(3):
    f(torch.randn(16, device="cuda"), torch.randn(4))
torch.cuda.synchronize()
print("ok")
