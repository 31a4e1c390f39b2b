"""pytorch/pytorch#197811 ("[dynamo] torch.compile silently reuses a graph when closures capture
different Tensor method descriptors", https://github.com/pytorch/pytorch/issues/197811): two
closures from one factory share a code object and capture Tensor.__add__ and Tensor.__mul__; the
captured descriptor is not guarded, so the second compiled call reuses the first graph (9, not
18)."""
import torch


def make(op):
    def fn(x, y):
        return op(x, y)
    return fn


add = make(torch.Tensor.__add__)
mul = make(torch.Tensor.__mul__)
x = torch.tensor(6.0)
y = torch.tensor(3.0)
print(add(x, y), mul(x, y))
r_add = torch.compile(add, dynamic=True)(x, y)
r_mul = torch.compile(mul, dynamic=True)(x, y)
print(r_add, r_mul)
assert r_mul.item() == 18.0, f"compiled mul returned {r_mul.item()}"
