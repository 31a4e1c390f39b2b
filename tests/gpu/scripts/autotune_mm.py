import torch


def fn(a, b):
    return torch.relu(a @ b)


opt = torch.compile(fn, mode="max-autotune")
a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
b = torch.randn(512, 512, device="cuda", dtype=torch.float16)
out = opt(a, b)
torch.cuda.synchronize()
assert torch.allclose(out, fn(a, b), atol=1e-1, rtol=1e-2)
