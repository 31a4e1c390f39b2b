"""pytorch/pytorch#198192 ("[dynamo] `IndexError` raised by a tensor op inside a compiled function
skips the user's own `except IndexError` and escapes the compiled call",
https://github.com/pytorch/pytorch/issues/198192): eager catches the out-of-range index and
returns the fallback; compiled (backend="eager"), the IndexError escapes and ends the program."""
import torch


def pick(x):
    try:
        return x[10]
    except IndexError:
        return x.sum()


x = torch.arange(4.0)
print("eager:", pick(x))
print("compiled:", torch.compile(pick, backend="eager")(x))
