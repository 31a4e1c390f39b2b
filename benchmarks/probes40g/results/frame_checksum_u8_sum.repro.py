"""accuracy (accuracy) minified by compdiag: 1 of 2 nodes, 1-minimal; torch 2.13.0+cpu.

compdiag's accuracy check at capture, on the whole graph (same(), fp64 reference):
    output 0: integer/bool values differ at 990 of 1000 positions

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(l_frames_):
    sum_1 = l_frames_.sum(dim = 1, dtype = torch.uint8)
    return (sum_1,)


l_frames_ = torch.tensor([172, 47, 117, 192, 67, 235, 195, 103, 9, 211, 21, 242, 36, 87, 70, 216, 88, 140,
    58, 193, 230, 39, 87, 174, 88, 81, 165, 25, 77, 72, 9, 148, 115, 208, 243, 197,
    254, 79, 175, 192, 82, 99, 216, 177, 243, 29, 147, 147, 142, 167, 32, 193, 9,
    185, 127, 32, 31, 202, 244, 151, 163, 254, 203, 0], dtype=torch.uint8).reshape([1, 64])
expected = f(l_frames_)
torch.testing.assert_close(torch.compile(f)(l_frames_), expected, rtol=0.0001, atol=0.0001, equal_nan=True)
