"""Graph break: timing with time.perf_counter() inside a compiled function."""
import time

import torch


def timed(x):
    t0 = time.perf_counter()  # <- diagnosis
    y = x.sin() + x.cos()
    return y, t0


torch.compile(timed, backend="eager")(torch.randn(8))
print("ok")
