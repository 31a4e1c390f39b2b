"""pytorch/pytorch#185885: "[Inductor] torch.index_add accepts negative index while eager raises
out-of-bounds error". Eager: `RuntimeError: index -1 is out of bounds for dimension 0 with size
4`; Inductor (dynamic=True) updates the last row and returns."""
import torch


def fn(x, index, src):
    result = torch.index_add(x, 0, index, src)
    observer = result.clamp_max(1.0)
    return result, observer


x = torch.zeros(4, 3, dtype=torch.float32)
index = torch.tensor([0, -1], dtype=torch.int64)
src = torch.ones(2, 3, dtype=torch.float32)
compiled = torch.compile(fn, backend="inductor", fullgraph=True, dynamic=True)
print(compiled(x, index, src)[0])
