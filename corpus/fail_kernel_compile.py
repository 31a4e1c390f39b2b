"""Failure (kernel_compile): the generated C++ kernel does not compile (Inductor's injector)."""
import torch
import torch._inductor.config as inductor_config

inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "compile_error"


def block(x):
    return torch.relu(x) + 1  # <- diagnosis


torch.compile(block)(torch.randn(16))
print("ok")
