"""Inductor's C++ relu accuracy injector: CompilerBisector blames inductor / lowerings / relu."""
import sys

import torch
import torch._inductor.config as config

config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"


def my_func(x):
    return ((x * -1) - 0.01).relu()


inp = torch.rand([100])
sys.exit(0 if torch.allclose(torch.compile(my_func)(inp), my_func(inp)) else 1)
