import torch
torch._dynamo.config.reorderable_logging_functions.add(print)
def helper(y):
    print(f"helper mean {y.mean():.2f}")
    return y.sum()
class M(torch.nn.Module):
    def forward(self, y):
        print(f"module mean {y.mean():.2f}")
        return y.sum()
m = M()
@torch.compile
def f(x):
    y = x * 2
    return helper(y) + m(y)
f(torch.ones(4))
