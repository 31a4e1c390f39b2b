"""CPU inference worker for a timm classifier, restarted often (autoscaled pods).

It follows the CPU-inference advice to turn on Inductor's weight freezing. Every worker
start compiles the model again: the FX graph cache skips graphs with frozen constants,
so the warm cache on disk never serves this model.
"""
import sys
import time

import torch
import timm

torch._inductor.config.freezing = True

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
