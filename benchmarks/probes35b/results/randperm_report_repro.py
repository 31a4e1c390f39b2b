"""compile_error (inductor_lowering) minified by compdiag: 2 of 17 nodes, 1-minimal; torch 2.13.0+cpu.

torch's error:
    Not all inputs to pattern found in match.kwargs. Perhaps one of the inputs is unused?
      argname=slice_shape, flat_argnames=['slice_shape'], missing_argnames=['slice_shape'],
      match.kwargs={}

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(l_y_):
    idx = torch.randperm(8)
    getitem_1 = l_y_[idx]
    return (getitem_1,)


l_y_ = torch.tensor([3, 1, 2, 3, 1, 3, 2, 2])
torch.compile(f)(l_y_)
