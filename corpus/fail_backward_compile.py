"""Failure (kernel_compile, backward): the forward compiles; the backward graph, which AOTAutograd
compiles lazily at the first backward() and where Inductor recomputes relu, does not."""
import torch
import torch._inductor.config as inductor_config


def step(x, y):
    return (torch.relu(x) * y).sum()  # <- diagnosis


x = torch.randn(16, requires_grad=True)
y = torch.randn(16, requires_grad=True)
loss = torch.compile(step)(x, y)
inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "compile_error"
loss.backward()
print("ok")
