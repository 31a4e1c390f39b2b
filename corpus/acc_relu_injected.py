"""Accuracy: Inductor's relu accuracy injector makes compiled relu return x + 1."""
import torch
import torch._inductor.config as inductor_config

inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"


def block(x):
    return torch.relu(x) * 3  # <- diagnosis


x = torch.randn(16)
out = torch.compile(block)(x)
print("max abs diff vs eager:", (out - block(x)).abs().max().item())
