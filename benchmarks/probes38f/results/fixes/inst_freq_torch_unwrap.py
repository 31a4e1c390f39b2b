# Instantaneous-frequency features for a pitch tracker: STFT phase, unwrapped along time
# with numpy's np.unwrap (as in many librosa-style recipes), then differenced.
import math
import numpy as np
import torch

torch.manual_seed(0)
SR, N_FFT, HOP = 8000, 256, 64
WINDOW = torch.hann_window(N_FFT)


def if_features(wave):
    spec = torch.stft(wave, N_FFT, HOP, window=WINDOW, return_complex=True)
    logmag = torch.log10(spec.abs().clamp(min=1e-5))
    phase = spec.angle()
    dphi = phase.diff(dim=-1)
    dphi = torch.remainder(dphi + math.pi, 2 * math.pi) - math.pi   # torch equivalent of np.unwrap + diff
    inst_freq = dphi * SR / (2 * math.pi * HOP)
    return torch.cat([logmag[..., 1:], inst_freq], dim=1)


compiled = torch.compile(if_features)

t = torch.arange(4000) / SR
for step, f0 in enumerate([220.0, 330.0, 440.0]):
    wave = torch.stack([torch.sin(2 * math.pi * f0 * t), torch.sin(2 * math.pi * 1.5 * f0 * t)])
    wave = wave + 0.01 * torch.randn_like(wave)
    feats = compiled(wave)
    ref = if_features(wave)
    peak_bin = int(round(f0 * N_FFT / SR))
    print(f"step {step}: f0 {f0:.0f} Hz, feats {tuple(feats.shape)}, "
          f"IF at peak bin {feats[0, N_FFT // 2 + 1 + peak_bin].mean():.1f} Hz, "
          f"max diff vs eager {(feats - ref).abs().max():.2e}")
