"""pytorch/pytorch#193976 / #194754 ("[dynamo] Guard autocast objects by value rather than
identity", https://github.com/pytorch/pytorch/pull/194754): an autocast object the compiled
function uses is guarded by identity (ID_MATCH), so replacing it with an equivalent instance
recompiles the function."""
import torch

ctx = torch.autocast("cpu", dtype=torch.bfloat16)


def mlp(x, w):
    with ctx:
        y = x @ w
    return y.float().relu()


f = torch.compile(mlp, backend="eager")
x, w = torch.randn(8, 16), torch.randn(16, 16)
f(x, w)
ctx = torch.autocast("cpu", dtype=torch.bfloat16)  # an equivalent, new object
f(x, w)
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
