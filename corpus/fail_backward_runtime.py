"""Failure (runtime, backward): the forward compiles and runs; the compiled backward graph, compiled
lazily at the first backward(), fails when it runs. The class of pytorch/pytorch#163567 ("fail on
backwards only in compile"); Inductor's relu injector stands in for the bug, set to
runtime_error after the forward compiled, in the backward graph where Inductor recomputes relu."""
import torch
import torch._inductor.config as inductor_config


def step(x, y):
    return (torch.relu(x) * y).mean()  # <- diagnosis (the op whose backward kernel threw)


x = torch.randn(16, requires_grad=True)
y = torch.randn(16, requires_grad=True)
loss = torch.compile(step)(x, y)
inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"
loss.backward()
print("ok")
