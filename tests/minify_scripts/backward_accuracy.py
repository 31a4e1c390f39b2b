"""A wrong gradient (accuracy, backward): the relu injector set to "accuracy" after the forward
compiled makes the backward graph's recomputed relu return x + 1; the forward is right."""
import torch
import torch._inductor.config as inductor_config


def step(x, y):
    return (torch.relu(x.tanh()) * y).sum()


x = torch.randn(16, requires_grad=True)
y = torch.randn(16, requires_grad=True)
loss = torch.compile(step)(x, y)
inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"
loss.backward()
