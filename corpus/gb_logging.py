"""Graph break: logger.info() inside a compiled function."""
import logging

import torch

log = logging.getLogger("train")


def step(x):
    y = x.relu()
    log.info("batch shape %s", y.shape)  # <- diagnosis
    return y * 2


torch.compile(step, backend="eager")(torch.randn(8))
print("ok")
