"""Accuracy: Inductor's log1p accuracy injector makes compiled log1p return x + 1."""
import torch
import torch._inductor.config as inductor_config

inductor_config.cpp.inject_log1p_bug_TESTING_ONLY = "accuracy"


def softplus_ish(x):
    return torch.log1p(torch.exp(x))  # <- diagnosis


x = torch.randn(16)
out = torch.compile(softplus_ish)(x)
print("max abs diff vs eager:", (out - softplus_ish(x)).abs().max().item())
