# An input mutated in place: CUDA graphs cannot own the input's memory, so Inductor skips them.
import torch


def fn(x, y):
    x.add_(1)
    return x * y


opt = torch.compile(fn, mode="reduce-overhead")
x = torch.randn(1024, device="cuda")
y = torch.randn(1024, device="cuda")
for _ in range(3):
    out = opt(x, y)
torch.cuda.synchronize()
