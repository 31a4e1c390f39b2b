"""pytorch/pytorch#152994 ("[dynamo] Actually support functools.lru_cache",
https://github.com/pytorch/pytorch/issues/152994, open): Dynamo traces an lru_cache'd function's
body instead of its cache, which is unsound when the body reads state outside the function: after
a global changes, eager returns the cached (stale) value and compiled code the recomputed one, so
the two disagree. Reduced to a cached scale read from a module global; the user's own check at
the end compares them."""
import functools

import torch

SCALE = 2.0


@functools.lru_cache(maxsize=None)
def scale_for(name):
    return SCALE


def f(x):
    return x * scale_for("w")


x = torch.ones(4)
compiled = torch.compile(f, backend="eager")
print(f(x), compiled(x))
SCALE = 3.0
eager, comp = f(x), compiled(x)
print(eager, comp)
assert torch.equal(eager, comp), f"eager {eager.tolist()} compiled {comp.tolist()}"
