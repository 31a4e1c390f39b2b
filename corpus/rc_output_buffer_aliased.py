"""Recompile: one tensor passed as both the input and the `out` buffer of a compiled step
(PyTorch's test_recompiles: Dynamo guards that two inputs do not alias; probes45f). The step is
compiled for a separate buffer, then called in place with the same tensor twice."""
import torch


@torch.compile(backend="eager")
def step(x, out, s):
    return torch.mul(x, s, out=out)


x = torch.randn(16)
buf = torch.empty_like(x)
step(x, buf, 0.5)
step(x, x, 0.5)  # <- diagnosis
print(round(float(x.sum()), 4))
