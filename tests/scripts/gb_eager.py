"""A graph break under the eager backend (Dynamo only, cheap)."""
import torch


def f(x):
    y = x * 2
    print("between graphs")
    return y + 1


out = torch.compile(f, backend="eager")(torch.ones(3))
print("result", out.tolist())
