"""test/dynamo/test_subclasses.py::SubclassTests::test_tensor_subclass_ctx_guards (asserts that a
traceable wrapper subclass whose `__tensor_flatten__` context differs recompiles), after
pytorch/pytorch#114405 ("__torch_dispatch__ + compile: extra guards"). A weight-only int8
quantised layer keeps its per-tensor scale as a Python float in the subclass's flatten
metadata. The weights drift every step, so the scale is new every step: Dynamo's guard on the
subclass metadata fails at every call (`___check_metadata_...`, no word of the scale), the layer
recompiles each step and hits the recompile limit after 8, then runs in eager."""
import torch
from torch.utils._pytree import tree_map


class Int8Weight(torch.Tensor):
    @staticmethod
    def __new__(cls, qdata, scale):
        return torch.Tensor._make_wrapper_subclass(cls, qdata.shape, dtype=torch.float32)

    def __init__(self, qdata, scale):
        self.qdata = qdata
        self.scale = scale

    def __tensor_flatten__(self):
        return ["qdata"], {"scale": self.scale}

    @staticmethod
    def __tensor_unflatten__(inner, meta, outer_size, outer_stride):
        return Int8Weight(inner["qdata"], meta["scale"])

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def dequant(t):
            return t.qdata.float() * t.scale if isinstance(t, Int8Weight) else t
        return func(*tree_map(dequant, args), **tree_map(dequant, kwargs or {}))


def quantize(w):
    scale = w.abs().max().item() / 127.0
    return Int8Weight(torch.round(w / scale).to(torch.int8), scale)


@torch.compile
def layer(x, wq):
    return torch.relu(x @ wq.t())


torch.manual_seed(0)
w = torch.randn(16, 32)
for step in range(10):
    w = w - 0.01 * torch.randn_like(w)
    y = layer(torch.randn(4, 32), quantize(w))
    print(step, round(y.sum().item(), 3))
