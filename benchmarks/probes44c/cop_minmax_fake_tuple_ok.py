"""Per-feature min/max calibration for int8 activation quantization, compiled.

Correct cousin of cop_minmax_fake_single_return.py: the fake implementation
returns a tuple of two tensors, mirroring the real (amin, amax) outputs.
"""
from typing import Tuple

import torch
import torch.nn as nn


@torch.library.custom_op("calib44c::minmax_observe_ok", mutates_args=())
def minmax_observe(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    flat = x.reshape(-1, x.shape[-1])
    return flat.amin(dim=0), flat.amax(dim=0)


@minmax_observe.register_fake
def _(x):
    return x.new_empty(x.shape[-1]), x.new_empty(x.shape[-1])


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
