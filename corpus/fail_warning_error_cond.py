"""A test suite's strict warnings filter meets a warning torch issues while it traces:
torch.cond given a Python bool warns that it specializes on one branch (pytorch/pytorch#128709,
"[cond] inlining into one of the branches when pred is a python constant"), the program's
`warnings.simplefilter("error")` makes that warning raise (#174081, torch's own warnings under
`-W error`), and Dynamo wraps it as its own internal error."""
import warnings

import torch

warnings.simplefilter("error")  # <- diagnosis


def route(x, training: bool):
    return torch.cond(training, lambda x: x * 0.5, lambda x: x, (x,))


f = torch.compile(route, backend="eager")
x = torch.ones(4)
print(route(x, True))
print(f(x, True))
