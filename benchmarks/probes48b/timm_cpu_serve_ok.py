"""CPU inference worker for a timm classifier, restarted often (autoscaled pods).

Compiled with the defaults (no weight freezing), so a restarted worker finds its
graph in the FX graph cache on disk.
"""
import sys
import time

import torch
import timm

torch.manual_seed(0)
model = timm.create_model("test_resnet", num_classes=10).eval()
model = torch.compile(model)

t0 = time.perf_counter()
with torch.no_grad():
    model(torch.rand(2, 3, 64, 64))  # warm-up: compile before taking traffic
print(f"worker ready in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

requests = [torch.rand(2, 3, 64, 64) for _ in range(3)]
with torch.no_grad():
    for i, batch in enumerate(requests):
        probs = model(batch).softmax(-1)
        print(f"request {i}: top-1 {probs.argmax(-1).tolist()}")
