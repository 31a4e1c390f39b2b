# Inductor's C++ relu made wrong on purpose (torch's own accuracy injector).
import torch
import torch._inductor.config as ic

ic.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"


def f(x, w):
    y = torch.sin(x) @ w
    z = torch.relu(y)
    return torch.cos(z) * 2


torch.manual_seed(0)
out = torch.compile(f)(torch.randn(8, 8), torch.randn(8, 8))
print("sum", float(out.sum()))
