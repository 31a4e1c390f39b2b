"""Speech front-end: a feature-extraction function compiled for speed.

A first-time user compiles the preprocessing (peak normalisation, pre-emphasis,
framing, log-power spectrum) because it is the slowest part of the input
pipeline.  The peak normalisation is written the "obvious" Python way.
"""
import math

import torch

torch.manual_seed(0)

SAMPLE_RATE = 16000
N_FFT = 400
HOP = 160


def make_clip(seconds, loud):
    t = torch.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    tone = torch.sin(2 * math.pi * 220.0 * t) + 0.3 * torch.randn_like(t)
    return tone * (3.0 if loud else 0.4)


@torch.compile
def extract_features(wave):
    # wave: (batch, samples)
    peak = wave.abs().amax()
    wave = torch.where(peak > 1.0, wave / peak, wave)  # compdiag's printed fix
    emph = torch.cat([wave[:, :1], wave[:, 1:] - 0.97 * wave[:, :-1]], dim=1)
    frames = emph.unfold(1, N_FFT, HOP)  # (batch, n_frames, N_FFT)
    window = torch.hann_window(N_FFT, device=wave.device)
    spec = torch.fft.rfft(frames * window, dim=-1)
    power = spec.real ** 2 + spec.imag ** 2
    return torch.log(power + 1e-6)


def batches(n_batches, batch_size=8):
    for i in range(n_batches):
        clips = [make_clip(1.0, loud=(i + j) % 3 == 0) for j in range(batch_size)]
        yield torch.stack(clips)


def main():
    total = 0.0
    n = 0
    for i, wave in enumerate(batches(6)):
        feats = extract_features(wave)
        total += feats.mean().item()
        n += 1
        if i % 2 == 0:
            print(f"batch {i}: feats {tuple(feats.shape)} mean {feats.mean().item():.3f}")
    print(f"average log-power over {n} batches: {total / n:.3f}")


if __name__ == "__main__":
    main()
