"""CUDA graphs skipped (GPU): a CPU tensor input to a reduce-overhead graph."""
import torch

torch._inductor.config.graph_partition = False  # whole-graph decision: skipped, not split


def mix(x, table):
    return x * 2 + table.sum()  # <- diagnosis


f = torch.compile(mix, mode="reduce-overhead")
for _ in range(3):
    f(torch.randn(16, device="cuda"), torch.randn(4))
torch.cuda.synchronize()
print("ok")
