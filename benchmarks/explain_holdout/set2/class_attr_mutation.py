"""pytorch/pytorch#176851 ("[regression] torch.compile does not recompile when class attribute is
mutated between calls", https://github.com/pytorch/pytorch/issues/176851): the compiled function
keeps the class attribute's value from the first trace; the user's check fails (eager 40,
compiled 4)."""
import torch


class GlobalState:
    factor = 1.0


def fn(x):
    return x * GlobalState.factor


compiled_fn = torch.compile(fn)
x = torch.tensor([4.0])
GlobalState.factor = 1.0
compiled_fn(x)
GlobalState.factor = 10.0
eager = fn(x)
compiled = compiled_fn(x)
assert torch.allclose(eager, compiled), f"eager={eager}, compiled={compiled}"
