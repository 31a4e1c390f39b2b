# A CPU tensor among the inputs of a CUDA graph: skipped with the CPU input named.
import torch


def fn(x, idx):
    return x[idx] * 2


opt = torch.compile(fn, mode="reduce-overhead")
x = torch.randn(64, 64, device="cuda")
idx = torch.tensor([1, 3, 5])  # stays on the CPU
for _ in range(3):
    out = opt(x, idx)
torch.cuda.synchronize()
