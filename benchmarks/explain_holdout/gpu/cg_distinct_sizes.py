"""pytorch/pytorch#119640 ("If dynamic shapes runtime CUDA graphs never quiesces, should loudly
warn") and #131387, which added the warning: a reduce-overhead function with dynamic=True
called with a new batch size every step records a CUDA graph per size, and torch warns that
it "observed N distinct sizes"."""
import torch


@torch.compile(mode="reduce-overhead", dynamic=True)
def step(x):
    return (x * 2).relu().sum(0)


for n in range(2, 16):
    step(torch.randn(n, 32, device="cuda"))
torch.cuda.synchronize()
