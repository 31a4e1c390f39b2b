"""Batch keyword-spotting scorer for audio clips; a clip that is too short must stop the
job with exit status 3 (the contract with the calling scheduler).

`featurize` is compiled with fullgraph=True and calls a validation helper that does
`sys.exit(EXIT_BAD_INPUT)` on a short clip. The first clips are 16000 samples; the fourth
is 900 samples, so Dynamo recompiles for the new length, the recompiled trace takes the
short-clip branch and reaches `sys.exit`, which Dynamo cannot trace: under fullgraph=True
the job dies with torch._dynamo.exc.Unsupported (exit 1) instead of exiting with status 3.
"""
import math
import sys

import torch
import torch.nn as nn

torch.manual_seed(0)
SAMPLE_RATE = 16000
N_FFT = 400
HOP = 160
MIN_SAMPLES = 1024
EXIT_BAD_INPUT = 3


def check_clip(wave):
    if wave.shape[-1] < MIN_SAMPLES:
        sys.exit(EXIT_BAD_INPUT)


def frame_energy(wave):
    check_clip(wave)
    frames = wave.unfold(-1, N_FFT, HOP)
    window = torch.hann_window(N_FFT)
    return (frames * window).pow(2).mean(-1).clamp_min(1e-8).log()


@torch.compile(fullgraph=True)
def featurize(wave):
    e = frame_energy(wave)
    return (e - e.mean(-1, keepdim=True)) / (e.std(-1, keepdim=True) + 1e-5)


class KWSHead(nn.Module):
    def __init__(self, hidden=32, n_words=4):
        super().__init__()
        self.conv = nn.Conv1d(1, hidden, 5, padding=2)
        self.out = nn.Linear(hidden, n_words)

    def forward(self, feats):
        h = torch.relu(self.conv(feats.unsqueeze(1)))
        return self.out(h.mean(-1))


head = KWSHead().eval()
lengths = [16000, 16000, 12000, 900, 16000]
clips = [torch.sin(2 * math.pi * 440 * torch.arange(n) / SAMPLE_RATE) + 0.05 * torch.randn(n)
         for n in lengths]

with torch.no_grad():
    for i, wave in enumerate(clips):
        feats = featurize(wave.unsqueeze(0))
        probs = head(feats).softmax(-1)
        print(f"clip {i}: {wave.shape[-1]} samples, {feats.shape[-1]} frames, "
              f"word {int(probs.argmax())} p={probs.max():.3f}")
print("all clips scored")
