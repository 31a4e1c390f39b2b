"""accuracy (accuracy) minified by compdiag: 3 of 53 nodes, 1-minimal; torch 2.13.0+cpu.

compdiag's accuracy check at capture, on the whole graph (same(), fp64 reference):
    output 0: integer/bool values differ at 1 of 1 positions

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(g_model_modules_head_buffers_qweight_t_, clamp_5):
    xq_2 = clamp_5.to(torch.int8)
    reshape_4 = xq_2.reshape(-1, 256)
    acc_2 = torch._int_mm(reshape_4, g_model_modules_head_buffers_qweight_t_)
    return (acc_2,)


g_model_modules_head_buffers_qweight_t_ = torch.zeros([256, 1], dtype=torch.int8)
clamp_5 = torch.zeros([1, 1, 256], dtype=torch.float32)
expected = f(g_model_modules_head_buffers_qweight_t_, clamp_5)
torch.testing.assert_close(torch.compile(f)(g_model_modules_head_buffers_qweight_t_, clamp_5), expected, rtol=0.0001, atol=0.0001, equal_nan=True)
