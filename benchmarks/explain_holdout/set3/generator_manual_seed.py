"""pytorch/pytorch#88576 ("Dynamo handling for all methods of torch.Generator",
https://github.com/pytorch/pytorch/issues/88576; still open, its maintainers chose to graph-break
on them): a torch.Generator made and seeded inside a compiled function graph-breaks at its
method call."""
import torch


def noisy(x):
    g = torch.Generator()
    g.manual_seed(0)
    noise = torch.randn(x.shape, generator=g)
    return x + noise


out = torch.compile(noisy, backend="eager")(torch.zeros(4))
print("breaks:", dict(torch._dynamo.utils.counters["graph_break"]))
