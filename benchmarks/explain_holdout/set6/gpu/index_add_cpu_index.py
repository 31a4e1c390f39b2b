"""pytorch/pytorch#183902 ("torch.compile skips device mismatch error for index_add with CPU index
and CUDA tensors", https://github.com/pytorch/pytorch/issues/183902): torch.randperm makes a CPU
index for CUDA tensors; eager index_add raises the device mismatch, the compiled function runs
and returns a CUDA tensor. The issue's script, printing both outcomes."""
import torch


def f(x, y):
    idx = torch.randperm(x.size(0))[: y.size(0)]
    return torch.index_add(x, 0, idx, y)


torch.manual_seed(5)
x = torch.randn(6, 4, device="cuda")
y = torch.randn(3, 4, device="cuda")
try:
    f(x.clone(), y.clone())
    eager = "OK"
except Exception as exc:
    eager = f"{type(exc).__name__} {str(exc).splitlines()[0]}"
compiled_out = torch.compile(f, backend="inductor")(x.clone(), y.clone())
print("eager:", eager, "compiled: OK", tuple(compiled_out.shape))
