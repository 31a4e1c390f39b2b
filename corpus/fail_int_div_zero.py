# after pytorch/pytorch#143649 (fixed by #186021, "[Inductor][CPU] Guard compiled integer div by zero")
"""Failure (runtime, a C++ exception out of a compiled kernel): integer floor division by zero.
Before the fix the generated C++ divided raw and the process died of SIGFPE; torch 2.13's
kernels set an error flag and throw ZeroDivisionError from the C++ prefix after the loop."""
import torch


def bucket(a, b):
    return (a // b) + 1  # <- diagnosis


torch.compile(bucket)(torch.arange(4), torch.tensor([1, 0, 2, 1]))
print("ok")
