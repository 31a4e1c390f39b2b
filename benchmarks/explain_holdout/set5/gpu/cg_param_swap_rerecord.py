"""pytorch/pytorch PR #129349 ("[cudagraph] fallback to eager if re-record too many times",
https://github.com/pytorch/pytorch/pull/129349): CUDA-graph trees treat parameters as static
inputs whose addresses are baked into the recording; a model that replaces a parameter object
every step (`self.attr = new_attr` instead of `self.attr.copy_(new_attr)`, the PR's discussion)
changes that address on every call, so the graph is re-recorded on every step until the
re-record limit makes torch give up on CUDA graphs for the function ("skipping cudagraph due to
function ... exceeding max re-recording limit")."""
import torch
import torch.nn as nn

lin = nn.Linear(64, 64).cuda()
f = torch.compile(lin, mode="reduce-overhead")
x = torch.randn(8, 64, device="cuda")
with torch.no_grad():
    for step in range(60):
        lin.weight = nn.Parameter(torch.randn(64, 64, device="cuda"))
        out = f(x)
torch.cuda.synchronize()
print(out.shape)
