"""Offline scoring with CUDA graphs (mode="reduce-overhead"): every batch is padded to the same
size so one graph is recorded, each result is copied to the host before the next call, and the
time per batch is taken with CUDA events outside the compiled model."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

model = nn.Sequential(
    nn.Linear(128, 512), nn.SiLU(), nn.Linear(512, 512), nn.SiLU(), nn.Linear(512, 1),
).to(device).eval()
scorer = torch.compile(model, mode="reduce-overhead")

BATCH = 256
rows = torch.randn(1000, 128)  # 1000 rows: the last batch is short and gets padded
scores = []
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
times = []

with torch.inference_mode():
    for i in range(0, rows.shape[0], BATCH):
        chunk = rows[i:i + BATCH]
        n = chunk.shape[0]
        batch = torch.zeros(BATCH, 128, device=device)
        batch[:n] = chunk.to(device, non_blocking=True)
        start.record()
        out = scorer(batch)
        end.record()
        scores.append(out[:n, 0].cpu())
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))

scores = torch.cat(scores)
print(f"scored {scores.numel()} rows, mean {scores.mean():.4f}, batch ms {[round(t, 2) for t in times]}")
