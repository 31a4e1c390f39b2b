"""pytorch/pytorch#154707 ("[Dynamo] recompiles with empty (no reason) guard",
https://github.com/pytorch/pytorch/issues/154707): the maintainers' answer is that compiling the
same function again with a different backend recompiles it, with an empty guard-failure reason
(`- 0/0: `)."""
import torch


def f(x):
    return torch.sin(x) + 1


x = torch.randn(8)
torch.compile(f, backend="eager")(x)
torch.compile(f, backend="aot_eager")(x)
