"""pytorch/pytorch#198364 ("copysign, floor_divide, div(rounding_mode="floor"), addr(beta=0) and
put return other strides than eager for a transposed input under torch.compile",
https://github.com/pytorch/pytorch/issues/198364): with the first input stored transposed, eager
keeps its layout (1, 5) and the compiled copysign returns contiguous strides."""
import torch


def op(a, b):
    return torch.copysign(a, b - 1.5)


a = torch.rand(6, 5).mT
b = torch.rand(5, 6) + 1
eager = op(a, b)
compiled = torch.compile(op)(a, b)
print("eager", eager.stride(), "compiled", compiled.stride())
assert compiled.stride() == eager.stride(), f"strides differ: {compiled.stride()} vs {eager.stride()}"
