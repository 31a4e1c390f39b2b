"""Graph break: a numpy function torch._numpy does not implement (np.save)."""
import os

import numpy as np
import torch


def checkpoint_and_scale(x):
    np.save(os.devnull, x.numpy())  # <- diagnosis
    return x * 2


torch.compile(checkpoint_and_scale, backend="eager")(torch.randn(8))
print("ok")
