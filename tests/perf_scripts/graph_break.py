"""Planted limiter: a graph break (torch._dynamo.graph_break) in the middle of a hot,
memory-bound pointwise chain over a tensor larger than the caches. Compiled, each half is one
pass over memory; the break makes it two, which halves the speed-up.
`--no-break` runs the same chain as one graph (the comparison in README ## perf)."""
import sys

import torch

BREAK = "--no-break" not in sys.argv


def hot(x):
    for _ in range(8):
        x = x * 1.01 + 0.5
    if BREAK:
        torch._dynamo.graph_break()  # <- the planted limiter
    for _ in range(8):
        x = x * 1.01 + 0.5
    return x


compiled = torch.compile(hot)
x = torch.randn(4096, 2048)  # 32 MB: every pass over it is a trip to memory
for _ in range(10):
    out = compiled(x)
print("ok", round(float(out.mean()), 3))
