"""pytorch/pytorch#177630: "`torch.compile(backend="inductor")` silently succeeds on
`torch.matmul` (>=3D) with mismatched dtypes (float16 @ float32) where eager raises
RuntimeError"."""
import torch


def f(a, b):
    return torch.matmul(a, b)


a = torch.randn(2, 4, 8, device="cuda", dtype=torch.float16)
b = torch.randn(2, 8, 4, device="cuda", dtype=torch.float32)
out = torch.compile(f, backend="inductor")(a, b)
print(out.dtype, out.shape)
