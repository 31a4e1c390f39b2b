"""Failure (runtime, GPU): a CUDA graph's output read after a later call overwrote it, torch's
own example from the CUDA graph trees docs (pytorch/pytorch#170604, #144386: the tensors must
be on CUDA for it to raise). The first call's output lives in the graph pool; the second call
records and reuses that memory, so reading y1 raises "accessing tensor output of CUDAGraphs
that has been overwritten by a subsequent run"."""
import torch


@torch.compile(mode="reduce-overhead")
def my_model(x):
    y = torch.matmul(x, x)
    return y


x = torch.randn(10, 10, device="cuda")
y1 = my_model(x)
y2 = my_model(x)
total = y1.sum()  # <- diagnosis
print(total)
