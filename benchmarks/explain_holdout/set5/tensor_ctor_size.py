"""pytorch/pytorch#196467 ("[dynamo] torch.Tensor(t.size()) is traced as torch.Tensor(tuple),
silently changing shape semantics under torch.compile",
https://github.com/pytorch/pytorch/issues/196467): in eager `torch.Tensor(v.size())` allocates an
uninitialized tensor of that shape; Dynamo bakes the torch.Size into the graph as a plain tuple,
so the compiled function returns a 1-D tensor holding the sizes as data, with no error, warning
or graph break (fullgraph=True too). On torch 2.13 the plain run returns shape (2,) where eager
returns (1, 4) and ends in the user's own assert on the shapes."""
import torch


def f(x):
    v = torch.nn.functional.linear(x, torch.ones(4, 10), torch.zeros(4))
    return torch.Tensor(v.size())


x = torch.randn(1, 10)
eager = f(x)
compiled = torch.compile(f, fullgraph=True)(x)
print("eager", eager.shape, "compiled", compiled.shape)
assert compiled.shape == eager.shape, f"shape {tuple(compiled.shape)} != {tuple(eager.shape)}"
