"""pytorch/pytorch#128942 ("torch.compile graph break with unsupported LOAD_BUILD_CLASS",
https://github.com/pytorch/pytorch/issues/128942, labelled dynamo-must-fix) and #161562 (open, its
repro without the set_fullgraph region): a class statement inside a compiled function is not
traced; on torch 2.13 the plain run counts one graph break at the class line ("Invalid call to
__build_class__ ... Cannot trace class definition"), and the function still returns -10."""
import torch


@torch.compile
def fn(x):
    y = x + 10

    class Foo:
        def __init__(self, x):
            self.x = x

    f = Foo(x)
    return f.x - y


print(fn(torch.tensor([1.0])))
from torch._dynamo.utils import counters
print("graph_break", dict(counters["graph_break"]))
print("frames", dict(counters["frames"]))
