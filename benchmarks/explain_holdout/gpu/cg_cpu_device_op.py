"""pytorch/pytorch#147648 ("[CUDAGraph] Graph Partition"), its example without graph partition:
a `.cpu()` in the middle of a reduce-overhead function skips CUDA graphs for the whole graph,
"skipping cudagraphs due to cpu device (device_put). Found from ... y_cpu = y1.cpu() + 1"."""
import torch

torch._inductor.config.graph_partition = False


def f(x, y):
    x1 = x + 1
    y1 = y + 1
    y_cpu = y1.cpu() + 1
    z = x @ y
    return x1 + y1 + z + y_cpu.cuda()


x, y = [torch.ones(2, 2, device="cuda") for _ in range(2)]
f_compiled = torch.compile(f, mode="reduce-overhead")
for _ in range(5):
    compiled_out = f_compiled(x, y)
torch.cuda.synchronize()
