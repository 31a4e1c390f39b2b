import copy

import torch
import torch.nn as nn

torch.manual_seed(0)


class OnePassInstanceNorm(nn.Module):
    """Per-channel normalisation over time, statistics in one pass (E[x^2] - E[x]^2)."""

    def __init__(self, channels, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.eps = eps

    def forward(self, h):                      # h: (batch, time, channels)
        mu = h.mean(1, keepdim=True)
        var = h.var(1, keepdim=True, unbiased=False)
        return (h - mu) * torch.rsqrt(var.clamp_min(0) + self.eps) * self.weight + self.bias


class SensorNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 32)
        self.norm = OnePassInstanceNorm(32)
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        h = self.norm(self.proj(x))
        return self.head(torch.relu(h).mean(1))


model = SensorNet().eval()
compiled = torch.compile(copy.deepcopy(model))
# raw readings: a large per-sensor offset (kelvin) with small variations over time
x = 290.0 + torch.randn(1, 1, 8) * 5 + torch.randn(4, 64, 8) * 0.5
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    eager_out = model(x).float()
    comp_out = compiled(x).float()
print("eager   ", [round(v, 3) for v in eager_out[0].tolist()])
print("compiled", [round(v, 3) for v in comp_out[0].tolist()])
diff = (eager_out - comp_out).abs().max().item()
print(f"max |compiled - eager| = {diff:.3f}  (bf16 noise would be < 0.05)")
