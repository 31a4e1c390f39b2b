"""pytorch/pytorch#139789 ("compiling "input mutation" followed by "input mutation + aliasing"
does not properly recompile", https://github.com/pytorch/pytorch/issues/139789): the second call
passes two overlapping views of one buffer, one of them mutated in place; AOTAutograd's graph
from the first (non-aliased) call is reused, so the result differs from eager. The issue prints
both; here the program compares them."""
import torch


def f(x, y):
    x.mul_(2)
    return x + y


x1 = torch.ones(4)
y1 = torch.ones(4)
f_compiled = torch.compile(f, backend="aot_eager")
out1 = f_compiled(x1, y1)

base = torch.ones(8)
x2 = base[:4]
y2 = base[2:6]
out2 = f_compiled(x2, y2)

base_ref = torch.ones(8)
out2_ref = f(base_ref[:4], base_ref[2:6])
print(out2_ref)
print(out2)
torch.testing.assert_close(out2, out2_ref)
