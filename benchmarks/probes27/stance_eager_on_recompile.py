"""An inference server loop. To keep latency predictable the author compiles the model once
with dynamic=False and sets torch.compiler.set_stance("eager_on_recompile") so that a new
input never triggers a compile. Requests arrive with varying batch sizes (the first is 8)."""
import time

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64), nn.LayerNorm(64)).eval()
served = torch.compile(model, dynamic=False)
torch.compiler.set_stance("eager_on_recompile")

sizes = [8, 3, 5, 8, 12, 1, 7, 8, 2, 16]
t0 = time.perf_counter()
with torch.no_grad():
    for i, bs in enumerate(sizes):
        out = served(torch.randn(bs, 64))
        print(f"request {i} batch {bs} -> {tuple(out.shape)}")
print("served", len(sizes), "requests")
