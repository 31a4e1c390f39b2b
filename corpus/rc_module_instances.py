"""Recompile: a compiled function handed a different instance of one nn.Module class each call;
each instance's Python float attribute is baked into its own graph. Not a shape problem, so
mark_dynamic is the wrong advice. After pytorch/pytorch#134954 ("Dynamo recompiles code on every
call when arguments include nn.Module"): three instances, a recompile at each new one (one alone,
a second configuration compiled once, is information)."""
import torch


class A(torch.nn.Module):
    def __init__(self, v):
        super().__init__()
        self.b = v

    def forward(self, x):
        return (x.sin() + self.b).sin()


def forward(net, x):
    return net.forward(x).sum()


cforward = torch.compile(forward, backend="eager")
x = torch.rand(10, 10)
nets = [A(1.0), A(2.0), A(3.0)]
for net in nets:
    cforward(net, x)  # <- diagnosis
print("ok")
