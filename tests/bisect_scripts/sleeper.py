"""Imports torch (so compdiag bisect forks it from a warm interpreter), writes its pid, sleeps."""
import os
import sys
import time

import torch  # noqa: F401

with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\n")
time.sleep(600)
