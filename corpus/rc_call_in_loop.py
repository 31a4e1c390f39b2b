"""Recompile: Python int bounds passed through a helper from a training-style loop; each new
value recompiles, and the call that triggered it is two frames away from the compiled `def`.
After pytorch/pytorch#114293 ("Recompilation triggered at each step of the loop": guards
`L['end'] == 10` on `for i in range(start+1, end)`)."""
import torch


def accumulate(x, start, end):
    for i in range(start + 1, end):
        x = x + i
    return x


step = torch.compile(accumulate, backend="eager")


def run_window(x, start):
    return step(x, start, start + 3)  # <- diagnosis


x = torch.zeros(4)
for start in range(3):
    x = run_window(x, start)
print("ok")
