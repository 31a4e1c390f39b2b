"""Accuracy: floating-point floor division bins event times, and a time on a bin's edge lands
in the next bin when compiled: Inductor lowers `a // b` on floats as floor(a / b), rounding the
quotient first, where eager (and Python) floor-divide exactly (0.5 // 0.1 is 4 in eager, 5
compiled). After pytorch/pytorch#197895 and #177740 (Inductor's floating floor_divide)."""
import torch

BIN = 0.1


def histogram(times):
    bins = (times // BIN).long().clamp(0, 9)  # <- diagnosis
    return torch.nn.functional.one_hot(bins, 10).sum(0)


times = torch.tensor([0.05, 0.3, 0.5, 0.7, 1.0, 0.6, 0.25], dtype=torch.float32)
print(torch.compile(histogram)(times).tolist())
