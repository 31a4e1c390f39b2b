"""pytorch/pytorch#191499 ("[Inductor][CPU] torch.compile returns 0 for short positive
uint8/int8 amin reductions on Apple Silicon", https://github.com/pytorch/pytorch/issues/191499,
open; a comment shows it on x86-64 AVX2 too once the reduction has 16 or more elements):
the compiled min of a positive uint8 vector returns 0 where eager returns its true minimum.
Written as a user's quantised-range step: the smallest and largest byte of a calibration batch.
"""
import torch


def byte_range(codes):
    return codes.min(), codes.max()


codes = torch.tensor([5, 1, 100, 3, 7, 8, 9, 13, 100, 120, 127, 2, 6, 4, 11, 12, 90, 80],
                     dtype=torch.uint8)
print("eager   ", [v.item() for v in byte_range(codes)])
print("compiled", [v.item() for v in torch.compile(byte_range)(codes)])
