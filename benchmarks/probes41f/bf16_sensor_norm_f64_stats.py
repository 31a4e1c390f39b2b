"""Anomaly scorer over bf16 sensor windows, normalised by dataset statistics.

The calibration mean/std are computed once with numpy (float64) and kept as
0-dim tensors; the scorer runs in bfloat16 and is torch.compile'd.
Follows pytorch/pytorch#185605 (bf16 tensor + 0-dim float64 tensor: eager
rounds the scalar to bf16 first, Inductor keeps it in higher precision).
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)

# calibration pass, done once offline in float64
calib = 100.3 + 0.05 * rng.standard_normal(10_000)
MEAN = torch.as_tensor(calib.mean())   # 0-dim float64 tensor
STD = torch.as_tensor(calib.std())     # 0-dim float64 tensor


class Scorer(nn.Module):
    def __init__(self, window=16):
        super().__init__()
        self.proj = nn.Linear(window, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x, mean, std):
        z = (x - mean) / std                      # normalise with the calibration stats
        h = torch.tanh(self.proj(z))
        return self.out(h).squeeze(-1), z.abs().amax(dim=-1)


def windows(n=6, window=16):
    raw = 100.3 + 0.05 * torch.randn(n, window, dtype=torch.float64)
    return raw.to(torch.bfloat16)


def main():
    model = Scorer().to(torch.bfloat16).eval()
    score = torch.compile(model)
    x = windows()
    with torch.no_grad():
        s, zmax = score(x, MEAN, STD)
    for i in range(x.shape[0]):
        print(f"window {i}: score {s[i].float().item():+.4f} max|z| {zmax[i].float().item():.3f}")
    flagged = (zmax > 3.0).sum().item()
    print(f"flagged windows: {flagged}/{x.shape[0]}")


if __name__ == "__main__":
    main()
