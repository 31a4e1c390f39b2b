"""Failure at run time (the data's): probes47e voxel_centroid_int_floordiv, after
pytorch/pytorch#143649. Per-bin integer means `sums // counts` where a bin is empty: Inductor's
C++ kernel raises ZeroDivisionError as eager does on the same values, so the fix is the
divisor (`counts.clamp(min=1)`), not a compiler to bisect."""
import torch


@torch.compile
def bin_means(values, bins, n):
    sums = torch.zeros(n, dtype=torch.int64).index_add_(0, bins, values)
    counts = torch.zeros(n, dtype=torch.int64).index_add_(0, bins, torch.ones_like(bins))
    return sums // counts  # <- diagnosis


print(bin_means(torch.arange(6), torch.tensor([0, 0, 1, 1, 3, 3]), 4))
