"""Batched inference with TF32 matmuls for speed, plus a periodic full-FP32 pass of the same
compiled model on the same batch to track how far the TF32 outputs drift."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = True

model = nn.Sequential(
    nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 2048), nn.GELU(), nn.Linear(2048, 512),
).to(device).eval()
compiled = torch.compile(model)


@torch.no_grad()
def predict(x, exact=False):
    torch.backends.cuda.matmul.allow_tf32 = not exact
    return compiled(x)


drifts = []
for step in range(8):
    x = torch.randn(256, 512, device=device)
    fast = predict(x)
    if step % 2 == 1:
        ref = predict(x, exact=True)
        drifts.append((fast - ref).abs().max().item())
    print(f"batch {step}: mean {fast.mean().item():+.5f}")

print("max |tf32 - fp32| per checked batch:", [f"{d:.2e}" for d in drifts])
