"""CUDA graphs skipped (GPU): a data-dependent op (nonzero) with dynamic output shape."""
import torch

torch._dynamo.config.capture_dynamic_output_shape_ops = True


def select(x):
    idx = torch.nonzero(x > 0)  # <- diagnosis
    return idx.sum() + x.sum()


f = torch.compile(select, mode="reduce-overhead")
for _ in range(3):
    f(torch.randn(16, device="cuda"))
torch.cuda.synchronize()
print("ok")
