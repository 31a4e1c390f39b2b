"""Minify e2e: accuracy (relu injector computes x + 1), with an integer index input and a
20x20 input the minifier should shrink."""
import torch
import torch._inductor.config as inductor_config

inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"


@torch.compile
def f(x, idx):
    y = torch.relu(x).index_select(0, idx)
    return y * 3


print(f(torch.randn(20, 20), torch.tensor([0, 3, 5])).sum().item())
