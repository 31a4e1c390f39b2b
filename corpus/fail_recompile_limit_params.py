# after microsoft/dion#23 ("recompile_limit reached": FailOnRecompileLimitHit with fullgraph=True) and pytorch/pytorch#167504
"""Cause above consequence: a fullgraph=True helper an optimizer calls once per parameter.
Parameters keep static shapes (force_parameter_static_shapes), so each new shape fails the
size guard and recompiles; the ninth shape hits the recompile limit and, under fullgraph=True,
raises FailOnRecompileLimitHit. The cause is the size guard on the parameter, at the call."""
import torch

params = [torch.nn.Parameter(torch.randn(4, n)) for n in range(2, 12)]


@torch.compile(fullgraph=True, backend="eager")
def post_orthogonalize(xs):
    return [x / x.norm() for x in xs]


for p in params:
    post_orthogonalize([p])  # <- diagnosis
print("ok")
