# Inductor's log1p made wrong on purpose (torch's own accuracy injector).
import torch
import torch._inductor.config as ic

ic.cpp.inject_log1p_bug_TESTING_ONLY = "accuracy"


def f(x):
    a = torch.exp(x) * 0.5
    b = torch.log1p(a)
    return b.sum(dim=0) + 1


torch.manual_seed(0)
out = torch.compile(f)(torch.rand(16, 4))
print("sum", float(out.sum()))
