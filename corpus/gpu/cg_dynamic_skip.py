"""CUDA graphs skipped (GPU): dynamic shapes with cudagraph_skip_dynamic_graphs on."""
import torch

torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True


def f(x):
    return (x.sin() + 1).sum()  # <- diagnosis


g = torch.compile(f, mode="reduce-overhead", dynamic=True)
for n in (8, 16, 24):
    g(torch.randn(n, device="cuda"))
torch.cuda.synchronize()
print("ok")
