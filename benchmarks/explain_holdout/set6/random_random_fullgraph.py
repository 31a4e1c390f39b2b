"""pytorch/pytorch#145446 ("[dynamo] fix graph break random.random",
https://github.com/pytorch/pytorch/issues/145446, open, a regression): random.random() in a
fullgraph function is a graph break (random.randint, uniform and randrange are traced); under
fullgraph=True the call fails. The script is the issue's (backend='eager')."""
import random

import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return x + random.random()


print(fn(torch.ones(5, 5)).shape)
