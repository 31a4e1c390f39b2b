"""pytorch/pytorch#112260 ("[dynamo] we do not instantiate guards for ambient autocast mode",
https://github.com/pytorch/pytorch/issues/112260), fixed by #143592 ("guard global autocast
state"), whose reason #172636 made specific ("autocast(<device>)_enabled"): a function compiled
outside autocast and then called inside torch.autocast("cpu") recompiles on the global autocast
state."""
import torch


def mlp(x, w):
    return torch.relu(x @ w).sum(-1)


f = torch.compile(mlp, backend="eager")
x, w = torch.randn(8, 16), torch.randn(16, 16)
f(x, w)
with torch.autocast("cpu", dtype=torch.bfloat16):
    f(x, w)
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
