# Validation loop for a small classifier compiled with mode="reduce-overhead".
# The model is warmed up first (so CUDA graphs are captured before the timed
# pass), then every batch's logits are kept in a list for later ensembling.
import time

import torch
import torch.nn as nn

torch.manual_seed(0)
device = "cuda"


class Classifier(nn.Module):
    def __init__(self, d_in=64, hidden=256, n_cls=10):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden),
            nn.GELU(),
            nn.LayerNorm(hidden),
            nn.Linear(hidden, n_cls),
        )

    def forward(self, x):
        return self.net(x)


model = Classifier().to(device).eval()
teacher = torch.randn(64, 10, device=device)
batches = [torch.randn(128, 64, device=device) for _ in range(8)]
labels = torch.cat([(b @ teacher).argmax(-1) for b in batches])

cmodel = torch.compile(model, mode="reduce-overhead")

with torch.no_grad():
    for _ in range(3):  # warm-up: compile and capture before timing
        cmodel(batches[0])
    torch.cuda.synchronize()

    t0 = time.perf_counter()
    all_logits = []
    for xb in batches:
        logits = cmodel(xb)
        all_logits.append(logits)
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0

    logits = torch.cat(all_logits)
    acc = (logits.argmax(-1) == labels).float().mean().item()
    print(f"val batches: {len(all_logits)}  time: {elapsed * 1e3:.1f} ms")
    print(f"val accuracy: {acc:.4f}")
    print(f"logit mean: {logits.mean().item():.6f}")
    print("per-batch logit sums:", [round(t.sum().item(), 3) for t in all_logits[:4]])
