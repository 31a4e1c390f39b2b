"""pytorch/pytorch#135816 ("Can we remove @torch._dynamo_disable from
torch.utils.checkpoint.checkpoint?", https://github.com/pytorch/pytorch/issues/135816): a graph
break inside a checkpointed region makes the whole torch.utils.checkpoint call fall back to
eager (the maintainers: checkpoint support relies on it); here a print() inside the layer."""
import torch
from torch.utils.checkpoint import checkpoint

lin1, lin2 = torch.nn.Linear(16, 16), torch.nn.Linear(16, 16)


def layer(x):
    h = torch.relu(lin1(x))
    print("layer ran")  # a graph break inside the checkpointed region
    return lin2(h)


def block(x):
    x = x * 2
    return checkpoint(layer, x, use_reentrant=False).sum()


x = torch.randn(4, 16, requires_grad=True)
torch.compile(block, backend="eager")(x).backward()
print("breaks:", dict(torch._dynamo.utils.counters["graph_break"]))
