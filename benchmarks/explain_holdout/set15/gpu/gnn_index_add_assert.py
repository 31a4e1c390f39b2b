"""pytorch/pytorch#95143 ("`torch.compile` crash for `index_add` when index out of range in
self", https://github.com/pytorch/pytorch/issues/95143: eager raises IndexError, the compiled
function aborts the process, "IOT instruction (core dumped)"), here on CUDA and in a graph
network's message passing, where the edge list holds one node id past the end (a 1-based id, the
classic off-by-one in a graph loader). The compiled layer sums messages into their destination
nodes with index_add_, which Inductor lowers to a Triton scatter kernel (atomic adds) whose
indirect store is guarded by its device-side bounds assert, "Assertion `index out of bounds:
0 <= tmpN < 500` failed". The assert fires in the fourth step's kernel; the CUDA error is
asynchronous, so Python raises "CUDA error: device-side assert triggered"
(torch.AcceleratorError on recent releases) at the step's torch.cuda.synchronize(). Only ids past
the end are asserted: a negative id is wrapped by the same lowering (#185885, a CPU case of an
earlier set), so this case's bad id is N, not -1.

Why it should reproduce on torch 2.11: by design. config.assert_indirect_indexing is True by
default in every release (2.13's config.py), and the index_put_ lowering that index_add's
decomposition reaches passes check=True, so the scatter's indirect index is asserted (the
_unsafe_index_put variants are the ones that skip it). The id really is out of range; eager's
index_add_ asserts too. A CPU run on torch 2.13 (cuda replaced by cpu) compiles once, prints steps 0
to 2 and aborts (SIGABRT) in the fourth step at the generated C++ kernel's own bounds check,
"index out of bounds: 0 <= tmp7 < 500L"."""
import torch

torch.set_float32_matmul_precision("high")
N, D = 500, 64


class MessagePassing(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.msg = torch.nn.Linear(D, D)
        self.upd = torch.nn.Linear(2 * D, D)

    def forward(self, x, src, dst):
        m = self.msg(x[src])
        agg = torch.zeros_like(x).index_add_(0, dst, m)
        return self.upd(torch.cat([x, torch.relu(agg)], dim=-1))


g = torch.Generator().manual_seed(0)
layer = MessagePassing().cuda()
step = torch.compile(layer)
x = torch.randn(N, D, generator=g).cuda()
with torch.no_grad():
    for i in range(5):
        src = torch.randint(0, N, (4000,), generator=g)
        dst = torch.randint(0, N, (4000,), generator=g)
        if i == 3:
            dst[123] = N  # node ids 1..N from a loader that forgot to subtract 1
        x = step(x, src.cuda(), dst.cuda()).tanh()
        torch.cuda.synchronize()
        print(i, x.abs().mean().item())
