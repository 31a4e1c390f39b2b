import time

import torch
import torch.nn as nn

torch.manual_seed(0)


class FraudScorer(nn.Module):
    def __init__(self, n_features=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_features, 512), nn.LayerNorm(512), nn.GELU(),
            nn.Linear(512, 512), nn.LayerNorm(512), nn.GELU(),
            nn.Linear(512, 1),
        )

    def forward(self, x):
        return torch.sigmoid(self.net(x)).squeeze(-1)


def p50_ms(fn, x, n=30):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn(x)
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[n // 2]


model = FraudScorer().eval()
fast_model = torch.compile(model, backend="aot_eager")

batch = torch.randn(256, 64)
with torch.inference_mode():
    fast_model(batch)  # warm up
    eager_ms = p50_ms(model, batch)
    compiled_ms = p50_ms(fast_model, batch)
    flagged = (fast_model(batch) > 0.5).sum().item()
print(f"flagged {flagged} of {len(batch)}")
print(f"speed-up {eager_ms / compiled_ms:.2f}x")
