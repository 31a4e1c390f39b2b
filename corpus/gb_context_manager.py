"""Graph break: an unsupported context manager (a file) inside a compiled function: the
`open(...)` call breaks first (GB0059), and the resumed code cannot enter the file object made
in eager (GB0142, folded under it)."""
import os

import torch


def step(x):
    y = x.sin()
    with open(os.devnull, "w") as fh:  # <- diagnosis
        fh.write("step\n")
    return y + 1


torch.compile(step, backend="eager")(torch.randn(8))
print("ok")
