import torch


def fn(x, y):
    return torch.sin(x) * y + 1


opt = torch.compile(fn, mode="reduce-overhead")
x = torch.randn(1024, device="cuda")
y = torch.randn(1024, device="cuda")
for _ in range(4):
    out = opt(x, y)
torch.cuda.synchronize()
