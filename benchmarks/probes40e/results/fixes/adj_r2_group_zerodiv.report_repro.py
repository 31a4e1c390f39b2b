"""compile_error (dynamo) minified by compdiag: 1 of 6 nodes, 1-minimal; torch 2.13.0+cpu.

torch's error:
    division by zero

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(sub_3, sub_5):
    truediv_1 = sub_3 / sub_5
    return (truediv_1,)


sub_3 = 3
sub_5 = 0
torch.compile(f, backend="eager")(sub_3, sub_5)
