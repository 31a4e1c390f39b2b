"""pytorch/pytorch#198197 ("`torch.compile` (dynamo) — `try/except getattr(<builtin type>,
<missing attr>)` takes the wrong branch (AttributeError not raised; backend-independent)",
https://github.com/pytorch/pytorch/issues/198197, open, high priority): inside the compiled
function getattr(int, "__nonexistent__") does not raise, so the `except AttributeError` branch
that eager takes is skipped and the function returns sin(x) instead of cos(x), silently. On
torch 2.13 the plain run prints True (eager is cos) / False (compiled is not) and ends in the
user's own assert_close (4 of 4 elements differ)."""
import torch


def fn(x):
    def has(obj, name):
        try:
            getattr(obj, name)
        except AttributeError:
            return None
        else:
            return 1
    s = has(int, "__nonexistent__")
    return torch.cos(x) if s is None else torch.sin(x)


x = torch.randn(4)
eager = fn(x)
compiled = torch.compile(fn)(x)
print(torch.allclose(eager, torch.cos(x)), torch.allclose(compiled, torch.cos(x)))
torch.testing.assert_close(compiled, eager)
