"""Failure (kernel compile): probes47e classweight_int_pow_os_exit. Inverse-frequency class
weights from an int64 count tensor, `counts ** -1`: eager refuses an integer tensor to a
negative power, and Inductor's vectorised integer kernel fails to build (a C++ operator
mismatch). Converting to floating point first is the fix, not a compiler to bisect."""
import torch


@torch.compile
def class_weights(counts):
    inv = counts ** -1  # <- diagnosis
    return inv / inv.sum()


print(class_weights(torch.tensor([5, 3, 9, 1] * 8)))
