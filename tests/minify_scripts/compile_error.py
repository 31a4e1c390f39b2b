"""Minify e2e: C++ compile error (relu injector) in a graph with two inputs and two outputs."""
import torch
import torch._inductor.config as inductor_config

inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "compile_error"


@torch.compile
def f(x, y):
    a = torch.sin(x) + y
    return torch.relu(a).cos(), a * 2


f(torch.randn(8), torch.randn(8))
