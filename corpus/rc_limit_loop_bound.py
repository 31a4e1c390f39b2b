"""Recompile limit, with the guard that kept failing: a Python loop bound that changes every
call. After pytorch/pytorch#114293 ("Recompilation triggered at each step of the loop"):
`range(start, end)` unrolls, so Dynamo specialises `end` and every step is a new graph until
the recompile limit leaves the function in eager."""
import torch


def accumulate(x, end):
    total = x
    for i in range(1, end):  # <- diagnosis
        total = total + x * i
    return total


f = torch.compile(accumulate, backend="eager")
for end in range(2, 14):
    f(torch.randn(4), end)
print("ok")
