"""pytorch/pytorch#133725 ("[dynamo] support random.Random",
https://github.com/pytorch/pytorch/pull/133725), which fixed the breaks of #121349/#121350 but
noted one left: a random.Random seeded with a random.randint result fails under fullgraph=True
("UnspecializedPythonVariable() is not a constant") at the random.Random(seed) line."""
import random

import torch


def fn(x):
    seed = random.randint(0, 100)
    rand = random.Random(seed)
    return x + rand.randrange(10)


opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
print(opt_fn(torch.ones(1)))
