"""Accuracy (backward): the forward is right, a gradient is not. pytorch/pytorch#186799
(`atan2(x, y).amin(dim)`: x.grad drops the gradient at an argmin on the CPU, open on torch
2.13): the backward graph recomputes atan2 and routes the gradient with an exact equality mask
against the saved amin; Inductor's CPU kernels compute atan2 by two paths (vectorised in the
forward's reduction, scalar in the backward's) that differ in the last bits, so the mask misses
the selected element (pytorch/pytorch#186953 explains it). Run with --check-accuracy."""
import torch


def fn(x, y):
    return torch.atan2(x, y).amin(dim=-1)  # <- diagnosis


torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
y = torch.randn(2, 3)
torch.compile(fn)(x, y).sum().backward()
print("x.grad:", x.grad.flatten().tolist())
