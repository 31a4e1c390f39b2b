"""Compiles a function, waits past the store's flush interval, then SIGKILLs itself."""
import os
import signal
import time

import torch


def h(x):
    return x + 1


torch.compile(h, backend="eager")(torch.randn(3))
print("compiled", flush=True)
time.sleep(2.0)  # well past the store's 0.5 s flush interval, even on a busy machine
os.kill(os.getpid(), signal.SIGKILL)
print("not reached")
