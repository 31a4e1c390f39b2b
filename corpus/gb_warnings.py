"""Graph break: warnings.catch_warnings() inside a compiled function (stdlib, skipped)."""
import warnings

import torch


def quiet(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # <- diagnosis
        return x.sqrt()


torch.compile(quiet, backend="eager")(torch.rand(8))
print("ok")
