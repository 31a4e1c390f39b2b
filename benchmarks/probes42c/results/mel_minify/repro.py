"""crash (runtime) minified by compdiag: 2 of 10 nodes, 1-minimal; torch 2.13.0+cpu.

torch's error:
    the process died of SIGABRT in the first call of this graph

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(l_self_buffers_freq_w_, batch_norm):
    x_2 = torch._C._nn.gelu(batch_norm)
    matmul = torch.matmul(x_2, l_self_buffers_freq_w_)
    return (matmul,)


l_self_buffers_freq_w_ = torch.tensor([0.011556657, 0.02284431, 0.04042058, 0.06401855, 0.09075861, 0.11517244,
    0.13082418, 0.1330167, 0.12106068, 0.09862312]).reshape([10, 1])
batch_norm = torch.zeros([2, 2, 2, 10], dtype=torch.float32)
torch.compile(f)(l_self_buffers_freq_w_, batch_norm)
