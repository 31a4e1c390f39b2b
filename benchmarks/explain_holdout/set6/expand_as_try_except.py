"""pytorch/pytorch#148475 ("Dynamo replaces exception by hard error in `run_node`",
https://github.com/pytorch/pytorch/issues/148475, open): a RuntimeError raised by a tensor op
inside the user's own try/except in a compiled function is not routed to the handler: Dynamo
turns it into a hard TorchRuntimeError while tracing, so the program fails where eager takes the
except branch. The script is the issue's, with eager's result printed first."""
import torch


def fn(t):
    t0 = torch.randn(2)
    try:
        t.expand_as(t0)
    except RuntimeError:
        return t.sin()
    return t.cos()


t = torch.randn(2, 3)
print(fn(t).shape)
y = torch.compile(fn, backend="eager")(t)
print(y.shape)
