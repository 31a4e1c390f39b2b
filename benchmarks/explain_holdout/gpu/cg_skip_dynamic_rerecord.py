"""pytorch/pytorch#196385: "`cudagraph_skip_dynamic_graphs=True` still re-records one cudagraph
per input size". A median over a dynamic-size input times a static matmul: one CUDA graph
recording per distinct row count, forever."""
import torch
import torch._inductor.config as inductor_config

inductor_config.triton.cudagraph_skip_dynamic_graphs = True


def fn(rows, weight):
    return torch.median(rows) * (weight @ weight).relu()


compiled = torch.compile(fn, mode="reduce-overhead", fullgraph=True)
weight = torch.randn(64, 64, device="cuda")
for n in (10, 13, 16, 19, 22) * 2:
    rows = torch.randn(n, 64, device="cuda")
    torch._dynamo.mark_dynamic(rows, 0)
    compiled(rows, weight)
torch.cuda.synchronize()
