# A CPU tensor among a CUDA graph's inputs: Inductor skips CUDA graphs and names the input.
import torch


def fn(x, y_cpu):
    return x * 2, y_cpu + 1


opt = torch.compile(fn, mode="reduce-overhead")
x = torch.randn(1024, device="cuda")
y = torch.randn(16)
for _ in range(3):
    a, b = opt(x, y)
torch.cuda.synchronize()
