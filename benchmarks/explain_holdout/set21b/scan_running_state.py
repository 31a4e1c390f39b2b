"""pytorch/pytorch#153437 ("torch._higher_order_ops.scan graph breaks",
https://github.com/pytorch/pytorch/issues/153437, open, 2025-05): the simplest scan (a running
sum carried through time) does not compile as one graph; Inductor fails on
`aten._local_scalar_dense.default` inside its scan handling. In the issue (CUDA, 2.7) that was
a warning and a graph break; on torch 2.13 on the CPU the same failure ends the compile
(InductorError: DataDependentOutputException: aten._local_scalar_dense.default). Here a leaky
accumulator over a sequence of frames, written with scan to avoid unrolling the time loop."""
import torch
from torch._higher_order_ops import scan

torch.manual_seed(0)


@torch.compile
def accumulate(h0, frames):
    def step(h, x):
        h_next = 0.9 * h + x
        return h_next, h_next.clone()

    final, history = scan(step, h0, frames)
    return final, history


h0 = torch.zeros(4, 16)
frames = torch.randn(8, 4, 16)
final, history = accumulate(h0, frames)
print("final", final.shape, "history", history.shape, round(final.sum().item(), 4))
