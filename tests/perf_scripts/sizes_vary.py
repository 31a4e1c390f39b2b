# compdiag perf --try on the CPU: a function called with a new size each time recompiles
# (a recompile limiter whose fix is mark_dynamic / dynamic=True, a setting compdiag applies
# from outside the script).
import torch


def f(x):
    return (x.sin() * 2 + 1).sum()


g = torch.compile(f)
for n in (64, 96):
    for _ in range(3):
        g(torch.randn(n))
