"""compile_error (inductor_codegen) minified by compdiag: 1 of 421 nodes, 1-minimal; torch 2.13.0+cpu.

torch's error:
    (no message)

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(convert_element_type_1, index_put_4, full_default_8, unsqueeze_24):
    index_put_5 = torch.ops.aten.index_put.default(full_default_8, [None, None, unsqueeze_24, convert_element_type_1], index_put_4, True)
    return (index_put_5,)


convert_element_type_1 = torch.tensor([0, 0, 0, 0])
index_put_4 = torch.tensor([-0.00015811218, 4.805078e-05, -2.287443e-05, 0.00014785619, -0.00023314965,
    0.000119184355, -6.8017456e-05, 5.7473542e-05, -0.00028396497, 7.687523e-05,
    0.000100034755, 2.0383526e-05, -0.0001342669, 3.275157e-05, -0.00010692435,
    -0.00014307545, 0.00012273424, 4.0817948e-05, -0.00029266917, -0.00016973904,
    0.00019157252, 7.0397946e-05, 0.00015181693, -0.00018624136, 0.00023168184,
    -0.00023316493, 0.00026308224, -3.102078e-05, 6.756601e-05, -1.15736475e-05,
    0.00024971503, -0.00012936164, -0.00016868467, -0.00012688238, 0.0002942847,
    0.00010553813, -7.826824e-06, 0.00033945215, -4.1935316e-05, 0.00029037913,
    0.0001146671, 0.00024080976, 9.0338945e-05, 0.0002360316, -8.622094e-05,
    0.000101380094, -0.000107896296, -4.2792883e-05, -7.988741e-05, 0.0001791481,
    5.4957025e-05, -0.00015104312, -0.00017157296, 0.0002219434, -0.00014125774,
    -5.2089967e-05, -0.00014932247, -0.00015994089, 0.00031393865, 6.073327e-05,
    -6.164183e-05, 4.4021595e-05, 0.00012797571, -8.48222e-05]).reshape([4, 1, 4, 4])
full_default_8 = torch.tensor([[[[0.0]]], [[[0.0]]], [[[0.0]]], [[[0.0]]]])
unsqueeze_24 = torch.tensor([[0], [0], [0], [0]])
torch.compile(f)(convert_element_type_1, index_put_4, full_default_8, unsqueeze_24)
