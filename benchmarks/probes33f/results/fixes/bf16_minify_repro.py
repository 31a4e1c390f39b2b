"""accuracy (accuracy) minified by compdiag: 2 of 6 nodes, 1-minimal; torch 2.13.0+cpu.

compdiag's accuracy check at capture, on the whole graph (same(), fp64 reference):
    result 0: max abs error 0.00239, max rel error 1.3 beyond tolerance 0.0001
      (torch._dynamo.utils.same rules)

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(h):
    to = h.to(torch.bfloat16)
    to_1 = to.to(torch.float32)
    return (to_1,)


h = torch.tensor([[-0.6009775]])
expected = f(h)
torch.testing.assert_close(torch.compile(f)(h), expected, rtol=0.0001, atol=0.0001, equal_nan=True)
