"""Failure (kernel_compile, GPU): the generated Triton kernel does not compile (Inductor's
injector writes `compile error!` where relu's code goes: a SyntaxError in the kernel)."""
import torch
import torch._inductor.config as inductor_config

inductor_config.triton.inject_relu_bug_TESTING_ONLY = "compile_error"


def block(x):
    return torch.relu(x) + 1  # <- diagnosis


torch.compile(block)(torch.randn(16, device="cuda"))
print("ok")
