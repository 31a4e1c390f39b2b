"""A wrapper tensor subclass that keeps a per-tensor scale beside its data (the pattern of
int8/fp8 weight wrappers), written with __torch_dispatch__ as the subclass tutorial's first
example: unwrap, run the op, rewrap. It has no __tensor_flatten__/__tensor_unflatten__.
Eager works; the linear layer whose weight is wrapped is then compiled."""
import torch
import torch.nn as nn
from torch.utils._pytree import tree_map


class ScaledTensor(torch.Tensor):
    @staticmethod
    def __new__(cls, data, scale):
        return torch.Tensor._make_wrapper_subclass(cls, data.shape, dtype=data.dtype)

    def __init__(self, data, scale):
        self.data_ = data
        self.scale = scale

    def __repr__(self):
        return f"ScaledTensor(scale={self.scale})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def unwrap(t):
            return t.data_ * t.scale if isinstance(t, ScaledTensor) else t
        return func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))


class Proj(nn.Module):
    def __init__(self):
        super().__init__()
        w = torch.randn(8, 16)
        scale = w.abs().max() / 127
        self.register_buffer("w", ScaledTensor((w / scale).round(), scale))

    def forward(self, x):
        return torch.nn.functional.linear(x, self.w).relu()


torch.manual_seed(0)
m = Proj()
x = torch.randn(4, 16)
ref = m(x)
out = torch.compile(m)(x)
print("max diff", (out - ref).abs().max().item())
