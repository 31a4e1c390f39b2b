"""Memoised side effect: a functools.cache'd helper counts how often it really runs in a
global (pytorch/pytorch#146598). Eager runs it once per argument; compiled code ignores the
cache wrapper and runs the body, its global write included, at every call."""
import functools

import torch

built = 0


@functools.cache
def table(n):
    global built
    built += 1
    return n * 2


def scale(x):
    return x * table(3)  # <- diagnosis


f = torch.compile(scale)
for _ in range(3):
    f(torch.ones(4))
print("tables built:", built)
