"""pytorch/pytorch#153195 ("TF32 is disabled by default without warning"): a float32 matmul
compiled on an Ampere-or-newer GPU; torch.compile warns "TensorFloat32 tensor cores for float32
matrix multiplication available but not enabled"."""
import torch


def mm(a, b):
    return torch.matmul(a, b)


x = torch.randn(4096, 4096, device="cuda", dtype=torch.float32)
y = torch.randn(4096, 4096, device="cuda", dtype=torch.float32)
compiled = torch.compile(mm)
for _ in range(3):
    out = compiled(x, y)
torch.cuda.synchronize()
