"""pytorch/pytorch#129648 ("`torch.compile` mode and eager mode are different in generating
tensor API behavior", https://github.com/pytorch/pytorch/issues/129648), its case 1 (still
reproducing in 2025 per the maintainers): torch.Tensor built from a nested list of numpy
results runs in eager, while the compiled function raises "only one element tensors can be
converted to Python scalars"."""
import numpy as np
import torch


def _get_rot(rot):
    return torch.Tensor([[np.cos(rot), np.sin(rot)], [-np.sin(rot), np.cos(rot)]])


def make(*args, **kwargs):
    @torch.compile(backend="inductor")
    def f():
        a = _get_rot(*args, **kwargs)
        return a

    return f


rot = (-0.3925, 0.3925)
print("eager:", _get_rot(rot).shape)
print("compiled:", make(rot)().shape)
