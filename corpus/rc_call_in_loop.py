"""Recompile: Python int bounds passed through a helper from a training-style loop; each new
value recompiles, at the `range` line torch names; the call, two frames away, is beside it.
After pytorch/pytorch#114293 ("Recompilation triggered at each step of the loop": guards
`L['end'] == 10` on `for i in range(start+1, end)`)."""
import torch


def accumulate(x, start, end):
    for i in range(start + 1, end):  # <- diagnosis
        x = x + i
    return x


step = torch.compile(accumulate, backend="eager")


def run_window(x, start):
    return step(x, start, start + 3)


x = torch.zeros(4)
for start in range(3):
    x = run_window(x, start)
print("ok")
