"""Seasonal-trend decomposition for a batch of sensor series, compiled.

The period of each batch is detected from the data (autocorrelation argmax) and
then used as the moving-average window (Tensor.unfold size).  The user turned on
capture_scalar_outputs so `.item()` would not graph-break; the kernel size
becomes an unbacked SymInt and Inductor/AOTAutograd cannot specialize it.
Source: pytorch/pytorch#127830 / #143249 / #193693 (GuardOnDataDependentSymNode
raised from the backend, "Could not extract specialized integer from
data-dependent expression").
"""
import math

import torch
import torch.nn.functional as F

torch._dynamo.config.capture_scalar_outputs = True

N_SERIES, LENGTH, MAX_LAG = 4, 96, 24


def make_batch(seed):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(LENGTH, dtype=torch.float32)
    period = 12
    season = torch.sin(2 * math.pi * t / period)
    trend = 0.02 * t
    noise = 0.1 * torch.randn(N_SERIES, LENGTH, generator=g)
    return (trend + season + noise).unsqueeze(1)  # (N, 1, L)


def autocorr(x, max_lag):
    x = x - x.mean(dim=-1, keepdim=True)
    denom = (x * x).sum(dim=-1)
    lags = [(x[..., : LENGTH - k] * x[..., k:]).sum(dim=-1) / denom for k in range(1, max_lag + 1)]
    return torch.cat(lags, dim=-1).mean(dim=0).squeeze(0)  # (max_lag,)


def detect_period(x):
    ac = autocorr(x, MAX_LAG)
    ac = ac.clone()
    ac[:3] = -1.0  # ignore tiny lags
    return ac.argmax() + 1


@torch.compile
def decompose(x, period):
    k = period.item()
    trend = x.unfold(-1, k, 1).mean(dim=-1)  # moving average over one period
    pad = x.shape[-1] - trend.shape[-1]
    trend = F.pad(trend, (pad // 2, pad - pad // 2), mode="replicate")
    resid = x - trend
    return trend, resid, k


def main():
    torch.manual_seed(0)
    for seed in range(3):
        x = make_batch(seed)
        period = detect_period(x)
        trend, resid, k = decompose(x, period)
        print(f"batch {seed}: period={int(k)} trend_end={trend[:, 0, -1].mean():.3f} resid_std={resid.std():.3f}")


if __name__ == "__main__":
    main()
