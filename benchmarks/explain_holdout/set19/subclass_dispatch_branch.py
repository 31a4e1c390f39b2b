"""pytorch/pytorch#115646 ("torch_dispatch subclass doesn't gracefully fall back to eager-mode
under torch.compile", https://github.com/pytorch/pytorch/issues/115646, open). A quantised-weight
wrapper subclass skips dequantisation for an all-zero (pruned) weight with a data-dependent
`if` inside the helper its `__torch_dispatch__` calls. Eager runs it. Compiled, Dynamo and
AOTAutograd trace the subclass's dispatch with fake tensors, the `if` needs a real value, and
the first call ends with "InternalTorchDynamoError: DataDependentOutputException:
aten._local_scalar_dense.default", instead of a graph break; "from user code" names the matmul,
the traceback's last user frame the `if`."""
import torch
from torch.utils._pytree import tree_map


def dequantize(t):
    if not isinstance(t, PrunableInt8):
        return t
    if (t.qdata == 0).all():
        return torch.zeros(t.shape)
    return t.qdata.float() * t.scale


class PrunableInt8(torch.Tensor):
    @staticmethod
    def __new__(cls, qdata, scale):
        return torch.Tensor._make_wrapper_subclass(cls, qdata.shape, dtype=torch.float32)

    def __init__(self, qdata, scale):
        self.qdata = qdata
        self.scale = scale

    def __tensor_flatten__(self):
        return ["qdata", "scale"], None

    @staticmethod
    def __tensor_unflatten__(inner, meta, outer_size, outer_stride):
        return PrunableInt8(inner["qdata"], inner["scale"])

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return func(*tree_map(dequantize, args), **tree_map(dequantize, kwargs or {}))


def quantize(w):
    scale = w.abs().max() / 127
    return PrunableInt8(torch.round(w / scale).to(torch.int8), scale)


@torch.compile
def layer(x, wq):
    return torch.relu(x @ wq.t())


torch.manual_seed(0)
wq = quantize(torch.randn(8, 16))
x = torch.randn(2, 16)
print("eager", torch.relu(x @ wq.t()).sum().item())
print("compiled", layer(x, wq).sum().item())
