"""Missed epilogue fusion (GPU): in default mode the matmul is a cuBLAS call and the bias add,
relu and scale after it run as a separate Triton pointwise kernel that reads the product back
from memory; max-autotune's Triton templates can fuse that work into the matmul's epilogue
(pytorch/pytorch#108193, mm + epilogue fused vs unfused)."""
import torch

torch.set_float32_matmul_precision("high")  # TF32 on: the case is the epilogue, not TF32


def fn(a, b, bias):
    return torch.relu(a @ b + bias) * 0.5  # <- diagnosis


opt = torch.compile(fn)
a = torch.randn(512, 512, device="cuda")
b = torch.randn(512, 512, device="cuda")
bias = torch.randn(512, device="cuda")
for _ in range(3):
    out = opt(a, b, bias)
torch.cuda.synchronize()
print("ok")
