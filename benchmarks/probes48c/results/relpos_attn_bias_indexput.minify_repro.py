"""compile_error (inductor_lowering) minified by compdiag: 7 of 28 nodes, 1-minimal; torch 2.13.0+cpu.

torch's error:
    'buf5'

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(scores, getitem_3):
    bias = torch.full((24, 24), 1.0)
    pos = torch.arange(24)
    unsqueeze_2 = pos.unsqueeze(1)
    unsqueeze_3 = pos.unsqueeze(0)
    bias[(unsqueeze_2, unsqueeze_3)] = getitem_3;  setitem = bias
    add_1 = scores + bias
    attn = torch.softmax(add_1, dim = -1)
    return (attn,)


scores = torch.tensor([[-0.027267639]])
getitem_3 = torch.tensor([[0.02452103]])
torch.compile(f)(scores, getitem_3)
