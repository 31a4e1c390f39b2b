"""Failure (runtime): the compiled C++ kernel throws while running (Inductor's injector)."""
import torch
import torch._inductor.config as inductor_config

inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"


def block(x):
    return torch.relu(x) * 2  # <- diagnosis (the op of the kernel that threw)


torch.compile(block)(torch.randn(16))
print("ok")
