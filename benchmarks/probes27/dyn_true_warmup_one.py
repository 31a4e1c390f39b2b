"""An embedding service compiled with dynamic=True so that every batch size shares one
graph. At start-up it warms the compiled model with a single example, then serves batches
of varying size."""
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(32, 128), nn.SiLU(), nn.Linear(128, 32)).eval()
embed = torch.compile(encoder, dynamic=True)

with torch.no_grad():
    embed(torch.randn(1, 32))  # warm-up: compile before the first request
    for bs in (4, 9, 2, 16, 7):
        out = embed(torch.randn(bs, 32))
        out = out / out.norm(dim=-1, keepdim=True)
        print(bs, tuple(out.shape), "%.4f" % out.sum().item())
