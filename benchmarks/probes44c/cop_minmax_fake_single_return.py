"""Per-feature min/max calibration for int8 activation quantization, compiled.

The observer kernel is a torch.library custom op returning (amin, amax).  Its
fake (meta) implementation was copy-pasted from a single-output op and returns
ONE tensor instead of a tuple of two, so Dynamo's fake-tensor run of the op
fails at the call site even though eager works.
Source: pytorch/pytorch#172428 / #156722 and the torch.library custom-op
tutorial (register_fake must mirror the real outputs).
"""
from typing import Tuple

import torch
import torch.nn as nn


@torch.library.custom_op("calib44c::minmax_observe", mutates_args=())
def minmax_observe(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    flat = x.reshape(-1, x.shape[-1])
    return flat.amin(dim=0), flat.amax(dim=0)


@minmax_observe.register_fake
def _(x):
    return x.new_empty(x.shape[-1])


class Observer(nn.Module):
    def __init__(self, features, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("lo", torch.zeros(features))
        self.register_buffer("hi", torch.zeros(features))

    def forward(self, x):
        lo, hi = minmax_observe(x.detach())
        self.lo.lerp_(lo, self.momentum)
        self.hi.lerp_(hi, self.momentum)
        return x


class MLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, d_out=10):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.obs1 = Observer(d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(self.obs1(h))


def scales(obs):
    return (torch.maximum(obs.hi.abs(), obs.lo.abs()) / 127.0).clamp_min(1e-8)


def main():
    torch.manual_seed(0)
    model = MLP().eval()
    calib = torch.compile(model)
    with torch.no_grad():
        for step in range(8):
            calib(torch.randn(16, 32))
    s = scales(model.obs1)
    print(f"scale mean {s.mean():.5f} max {s.max():.5f}")
    print(f"range lo {model.obs1.lo.mean():.4f} hi {model.obs1.hi.mean():.4f}")


if __name__ == "__main__":
    main()
