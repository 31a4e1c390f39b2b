"""Accuracy (backward): the forward is right, a gradient is not. The class of
pytorch/pytorch#180771 (Inductor's slice_scatter backward zeroed x.grad, the forward correct);
that bug is fixed on the CPU in torch 2.13, so Inductor's relu injector stands in for it, set
after the forward compiled: the backward graph, compiled lazily at the first backward(), where
Inductor recomputes relu, computes relu(x) + 1. Run with --check-accuracy."""
import torch
import torch._inductor.config as inductor_config


def step(x, y):
    h = torch.relu(x)  # <- diagnosis
    return (h * y).sum() * 2


x = torch.randn(16, requires_grad=True)
y = torch.randn(16, requires_grad=True)
loss = torch.compile(step)(x, y)
inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"
loss.backward()
print("max |y.grad - relu(x)|:", (y.grad - torch.relu(x)).abs().max().item())
