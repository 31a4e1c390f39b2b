"""compile_error (dynamo) minified by compdiag: 1 of 4 nodes, 1-minimal; torch 2.13.0+cpu.

torch's error:
    Guard failed: x.size()[0] == 8

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(eq):
    _assert = torch._assert(eq, 'Guard failed: x.size()[0] == 8')
    return (_assert,)


eq = False
torch.compile(f, backend="eager")(eq)
