"""pytorch/pytorch#141258 ("`torch.compile` fails with runtime error on Numpy scalar operations",
https://github.com/pytorch/pytorch/issues/141258): `int(round(np.floor(3.1)))` inside a compiled
function (the pattern of suno-ai/bark's generation.py) fails in Dynamo; eager returns x + 3."""
import numpy as np
import torch


@torch.compile(backend="eager")
def run(x):
    n = int(round(np.floor(3.1)))
    return x + n


print(run(torch.ones(1)))
