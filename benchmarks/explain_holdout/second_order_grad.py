"""pytorch/pytorch#183603: torch.compile fails on a second-order gradient after
autograd.grad(create_graph=True); eager computes it. (CPU, backend as in the issue.)"""
import torch


def f(x):
    y = (x ** 4).sum()
    return torch.autograd.grad(y, x, create_graph=True)[0]


xc = torch.tensor([0.5, 1.5, 2.5, 3.5], requires_grad=True)
gc = torch.compile(f, backend="inductor")(xc)
hc = torch.autograd.grad(gc.sum(), xc)[0]
print("compile d2:", hc.tolist())
