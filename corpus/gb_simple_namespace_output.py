"""Graph break: a model returns its heads in a `types.SimpleNamespace`, whose constructor
Dynamo does not trace (PR pytorch/pytorch#193719; probes45a); a dict or NamedTuple traces."""
import types

import torch

torch.manual_seed(0)
body = torch.nn.Linear(8, 8)
mean_head, var_head = torch.nn.Linear(8, 1), torch.nn.Linear(8, 1)


@torch.compile(backend="eager")
def heads(x):
    h = torch.relu(body(x))
    return types.SimpleNamespace(mean=mean_head(h), log_var=var_head(h))  # <- diagnosis


out = heads(torch.randn(4, 8))
print(tuple(out.mean.shape), tuple(out.log_var.shape))
