"""Online scoring of a ranking MLP: CUDA graphs (mode="reduce-overhead") to cut launch overhead on
small batches, and max_autotune so Inductor benchmarks Triton GEMM templates for the linears."""
import time

import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

model = nn.Sequential(
    nn.Linear(256, 1024), nn.ReLU(),
    nn.Linear(1024, 1024), nn.ReLU(),
    nn.Linear(1024, 1),
).to(device).eval()

scorer = torch.compile(model, mode="reduce-overhead", options={"max_autotune": True})

with torch.inference_mode():
    for request in range(6):
        feats = torch.randn(512, 256, device=device)
        t0 = time.perf_counter()
        scores = scorer(feats).squeeze(1)
        top = scores.topk(10).indices.cpu()
        print(f"request {request}: top {top[:3].tolist()} in {1e3 * (time.perf_counter() - t0):.1f} ms")
