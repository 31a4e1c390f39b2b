"""accuracy (accuracy) minified by compdiag: 1 of 19 nodes, 1-minimal; torch 2.13.0+cpu.

compdiag's accuracy check at capture, on the whole graph (same(), fp64 reference):
    output 0: max abs error 5.52, max rel error 479 beyond tolerance 0.0001
      (torch._dynamo.utils.same rules)

Fails while the bug is present, exits 0 once fixed; int8_repro_check.py is the full check.
"""
import os
import torch

raw = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'int8_repro.bin'), "rb").read()


def f(round_2):
    w_q_1 = round_2.to(torch.int8)
    return (w_q_1,)


round_2 = torch.frombuffer(bytearray(raw[0:1280]), dtype=torch.float32).reshape([5, 64])
expected = f(round_2)
torch.testing.assert_close(torch.compile(f)(round_2), expected, rtol=0.0001, atol=0.0001, equal_nan=True)
