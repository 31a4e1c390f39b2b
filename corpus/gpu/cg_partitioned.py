"""CUDA graphs partitioned (GPU): with graph_partition a CPU op in the middle splits the graph;
the rest still replays as a CUDA graph (Inductor's graph partition, pytorch/pytorch#147648
and its tracker #151832). Reported as partitions and what split them, not as a skip."""
import torch

torch._inductor.config.graph_partition = True


def fn(x, y):
    a = torch.sin(x)
    c = y.cpu() * 2  # <- diagnosis
    return a.cos() + c.cuda().sum()


opt = torch.compile(fn, mode="reduce-overhead")
x = torch.randn(128, device="cuda")
y = torch.randn(128, device="cuda")
for _ in range(4):
    out = opt(x, y)
torch.cuda.synchronize()
print("ok")
