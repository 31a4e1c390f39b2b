"""pytorch/pytorch#194503 ("[torch.compile] gaussian_nll_loss fails with a data-dependent guard
under fullgraph=True", https://github.com/pytorch/pytorch/issues/194503): inside
F.gaussian_nll_loss the validation `torch.any(var < 0)` is a data-dependent branch; with the
default fullgraph=False it is a graph break inside torch/nn/functional.py, reached from the
user's loss line (the issue: "The default fullgraph=False mode succeeds by allowing a graph
break")."""
import torch
import torch.nn.functional as F


def fn(input, target, var):
    return F.gaussian_nll_loss(input, target, var)


input = torch.zeros(2, 3)
target = torch.ones(2, 3)
var = torch.ones(2, 3)
print("eager:", fn(input, target, var))
compiled = torch.compile(fn, backend="inductor")
print("compiled:", compiled(input, target, var))
print("breaks:", sum(torch._dynamo.utils.counters["graph_break"].values()))
