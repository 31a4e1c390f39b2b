"""Fails whatever the backend: CompilerBisector blames eager."""
import sys

import torch


def f(x):
    return x + 1


torch.compile(f)(torch.ones(3))
sys.exit(1)
