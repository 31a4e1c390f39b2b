"""Perf: cumsum has no Inductor lowering on CPU and runs as an eager ATen fallback kernel."""
import torch

torch._inductor.config.fx_graph_cache = False  # perf hints are emitted only on a real compile


def running_mean(x):
    c = torch.cumsum(x, 0)  # <- diagnosis
    return c / torch.arange(1, x.numel() + 1)


torch.compile(running_mean)(torch.randn(64))
print("ok")
