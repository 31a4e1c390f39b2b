"""pytorch/pytorch PR #188161 / #191369 ("Demote changing CUDAGraph-managed inputs to copied
inputs", https://github.com/pytorch/pytorch/pull/191369): CUDA-graph tree child nodes specialize
an input that is a prior graph's output by its graph-pool address, so "when a parent produces
several interchangeable outputs and a later child consumes different output slots, the child
keeps re-recording even though the actual tensor value can be copied into a stable replay input"
(the PR's words; fixed by demoting the slot to a copied input after a limit, in torch releases
later than the one under test)."""
import torch


@torch.compile(mode="reduce-overhead")
def parent(x):
    return x + 1, x + 2, x + 3, x + 4


@torch.compile(mode="reduce-overhead")
def child(t):
    return t * 2


x = torch.randn(64, device="cuda")
for step in range(16):
    outs = parent(x)
    y = child(outs[step % 4])
torch.cuda.synchronize()
print(y.sum())
