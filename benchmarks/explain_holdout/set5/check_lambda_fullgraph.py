"""pytorch/pytorch#163668 ("torch._check causing graph breaks",
https://github.com/pytorch/pytorch/issues/163668): a torch._check whose message is a lambda that
formats the symbolic size (`lambda: f"{x.shape[0]} is not greater than 3"`) cannot be traced, so
a fullgraph compile of a function that only checks its input's size fails (the issue's repro, on
an input that passes the check). On torch 2.13 the plain run ends in Unsupported "Can't convert
torch._check*() message closure" from user code at the torch._check line."""
import torch


@torch.compile(fullgraph=True)
def f(x):
    torch._check(x.shape[0] > 3, lambda: f"{x.shape[0]} is not greater than 3")
    return x + 1


x = torch.randn(5)
torch._dynamo.maybe_mark_dynamic(x, 0)
print(f(x))
