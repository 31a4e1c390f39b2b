"""pytorch/pytorch#191571 ("`torch.compile` silently returns stale zeros when a size-1
`scatter_add_` is gathered from in the same graph (read-before-write in a fused Triton kernel)",
https://github.com/pytorch/pytorch/issues/191571; closed by a fix newer than the torch this set
runs on CUDA): when the scatter_add_ target has a leading dimension of 1 and the result is
index_select-ed in the same graph, Inductor fuses both into one Triton kernel and emits the
gather's load before the scatter's atomic_add, so the compiled function returns zeros; the
issue's repro, with a final check of compiled against eager."""
import torch


def f(x, idx):
    res = torch.zeros(1, x.shape[1], device=x.device, dtype=x.dtype)
    res.scatter_add_(0, idx.unsqueeze(-1).expand(-1, x.shape[1]), x)
    return torch.index_select(res, 0, idx)


x = torch.randn(8, 4, device="cuda")
idx = torch.zeros(8, dtype=torch.long, device="cuda")

eager = f(x, idx)
compiled = torch.compile(f)(x, idx)
print("max |eager - compiled| =", (eager - compiled).abs().max().item())
torch.testing.assert_close(compiled, eager)
