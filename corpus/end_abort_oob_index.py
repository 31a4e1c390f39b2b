# after pytorch/pytorch#195402: [inductor] Out-of-bounds index aborts the process (SIGABRT) instead of raising, when the generated kernel is parallelised
"""Abnormal end: eager raises a catchable IndexError for an out-of-bounds index; the compiled
C++ kernel checks the index inside a parallel region, the std::runtime_error it throws there
cannot cross OpenMP, and the C++ runtime calls terminate(): SIGABRT, no Python traceback."""
import torch


def shifted_rows(x, idx):
    return (x - 0.5)[idx]  # <- diagnosis


x = torch.randn(1, 8, 66, 66)
torch.compile(shifted_rows)(x, torch.tensor([[1]]))
print("ok")
