"""Failure (inductor_codegen): C++ codegen raises on an invalid log1p injector setting."""
import torch
import torch._inductor.config as inductor_config

inductor_config.cpp.inject_log1p_bug_TESTING_ONLY = "codegen_error"


def block(x):
    return torch.log1p(x.abs())  # <- diagnosis


torch.compile(block)(torch.randn(16))
print("ok")
