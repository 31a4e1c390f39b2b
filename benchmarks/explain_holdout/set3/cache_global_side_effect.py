"""pytorch/pytorch#146598 ("[t.compile][Functools] Cache decorator support for dynamo",
https://github.com/pytorch/pytorch/issues/146598): Dynamo ignores functools.cache and traces
the wrapped function, so its side effect on a global runs on every compiled call (eager: z=1
after three calls; compiled: z=3), and each call recompiles on the guard `G['z'] == ...`."""
import torch
from functools import cache

z = 0


@cache
def cached_fn(x):
    global z
    z = z + 1
    return x + 1


def fn(t):
    return t * cached_fn(2)


cfn = torch.compile(fn, backend="eager")
for _ in range(3):
    cfn(torch.ones(2))
    print("z =", z)
assert z == 1, f"the cached function ran {z} times"
