"""compile_error (kernel_compile) minified by compdiag: 2 of 4 nodes, 1-minimal; torch 2.13.0+cpu.

torch's error:
    C++ compile error

    Command:
    g++ /tmp/torchinductor_root/55/c55p7a46hhnnlse4b3mvonqpzqjh65viuaweb7t2z2qsla3a32kb.main.cpp ...

    Output:
    /tmp/torchinductor_root/55/c55p7a46hhnnlse4b3mvonqpzqjh65viuaweb7t2z2qsla3a32kb.main.cpp: In
      function ‘void kernel(const c10::Half*, c10::Half*, c10::Half*, c10::Half*)’:
    /tmp/torchinductor_root/55/c55p7a46hhnnlse4b3mvonqpzqjh65viuaweb7t2z2qsla3a32kb.main.cpp:35:
    ...

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(l_batch_):
    sum_1 = l_batch_.sum(dim = 0)
    totals = l_batch_.sum(dim = 0)
    return (sum_1, totals)


l_batch_ = torch.zeros([128, 2], dtype=torch.float16)
torch.compile(f)(l_batch_)
