"""pytorch/pytorch#113707 ("torch.compile doesn't respect use_deterministic_algorithms during the
backward()"; from its discussion: the global-state guard checks the deterministic mode, so
calling a compiled function, switching the mode and calling it again compiles a new graph)."""
import torch


@torch.compile(backend="inductor")
def pad(x):
    return torch.nn.functional.pad(x, (2, 2, 2, 2), mode="reflect") * 2


x = torch.randn(1, 1, 8, 8)
pad(x)
torch.use_deterministic_algorithms(True)
pad(x)
