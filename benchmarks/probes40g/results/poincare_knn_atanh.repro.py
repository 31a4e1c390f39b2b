"""accuracy (accuracy) minified by compdiag: 4 of 29 nodes, 1-minimal; torch 2.13.0+cpu.

compdiag's accuracy check at capture, on the whole graph (same(), fp64 reference):
    output 1: integer/bool values differ at 2 of 640 positions

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import os
import torch

raw = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'repro.bin'), "rb").read()


def f(z):
    atanh = torch.atanh(z)
    d = 2 * atanh
    topk = d.topk(10, dim = 1, largest = False)
    getitem_3 = topk[1]
    return (getitem_3,)


z = torch.frombuffer(bytearray(raw[0:320000]), dtype=torch.float32).reshape([32, 2500])
expected = f(z)
torch.testing.assert_close(torch.compile(f)(z), expected, rtol=0.0001, atol=0.0001, equal_nan=True)
