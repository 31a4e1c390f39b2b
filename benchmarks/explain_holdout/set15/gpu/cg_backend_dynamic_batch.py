"""pytorch/pytorch#131009 ("[cudagraph] an issue related to dynamic shapes for cudagraph backend
with sd2.1", open; a 2026 comment hits it on torch 2.8 and works around it with dynamic=False)
and #130912 before it: a model compiled with backend="cudagraphs" (CUDA graphs without Inductor)
runs at batch 8, then at 16, then fails at 32 with "RuntimeError: The size of tensor a (16) must
match the size of tensor b (32) at non-singleton dimension 0". The batch change recompiles the
model with a dynamic batch (automatic dynamic); Inductor's reduce-overhead would record one CUDA
graph per batch size, keyed on the graph's int inputs, but the cudagraphs backend hands
cudagraph_trees.cudagraphify_impl the graph's example inputs at compile time, where the batch is
a SymInt, not an int, so the key is empty: the graph recorded for batch 16 is replayed for batch
32, and copying the new input into the recording's 16-row input buffer raises. The error is raised
inside the compiled call of the batch-32 step.

Why it should reproduce on torch 2.11: the issue is open and the code is unchanged in the 2.13
wheel (torch/_dynamo/backends/cudagraphs.py passes aot_inputs to cudagraphify_impl, which keys on
isinstance(v, int)). A CPU run on torch 2.13, with the backend's device checks and
cudagraphify_impl stubbed to print their inputs, shows the dynamic graph's inputs
['FakeTensor', 'FakeTensor', 'SymInt', 'FakeTensor', 'FakeTensor', 'FakeTensor'] and no int
key. CUDA-graph trees warm up
on a function's first call and record on its second, so batch 16 is called twice."""
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 32, 3, padding=1)
        self.proj = torch.nn.Linear(32, 10)

    def forward(self, x):
        h = torch.nn.functional.silu(self.conv(x)).mean((2, 3))
        return self.proj(h)


torch.manual_seed(0)
model = Block().cuda().eval()
compiled = torch.compile(model, backend="cudagraphs")
with torch.no_grad():
    for batch in (8, 8, 16, 16, 32, 32):
        x = torch.randn(batch, 4, 32, 32, device="cuda")
        out = compiled(x)
        print(batch, tuple(out.shape), out.float().abs().mean().item())
torch.cuda.synchronize()
