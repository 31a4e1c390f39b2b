"""CUDA graphs (GPU): dynamic shapes record one graph per distinct size (reduce-overhead)."""
import torch


def f(x):  # <- diagnosis
    return (x.sin() + 1).sum()


g = torch.compile(f, mode="reduce-overhead", dynamic=True)
for n in range(8, 80, 8):
    g(torch.randn(n, device="cuda"))
torch.cuda.synchronize()
print("ok")
