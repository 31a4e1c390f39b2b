# Log-mel features for a batch of variable-length clips padded to the longest: STFT power,
# a hand-built mel filter bank, log10 with a floor, per-utterance mean/variance
# normalisation over the valid frames only (mask from the clip lengths).
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
N_FFT, HOP, N_MELS, SR = 256, 64, 20, 16000
WINDOW = torch.hann_window(N_FFT)
mel = lambda f: 2595 * math.log10(1 + f / 700)
PTS = 700 * (10 ** (torch.linspace(mel(0), mel(SR / 2), N_MELS + 2) / 2595) - 1)
FREQS = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
FB = torch.minimum((FREQS - PTS[:-2, None]) / (PTS[1:-1, None] - PTS[:-2, None]),
                   (PTS[2:, None] - FREQS) / (PTS[2:, None] - PTS[1:-1, None])).clamp(min=0)


def features(waves, lengths):
    spec = torch.stft(waves, N_FFT, HOP, window=WINDOW, return_complex=True)
    logmel = torch.log10((FB @ spec.abs().pow(2)).clamp(min=1e-6))
    n_frames = lengths // HOP + 1
    mask = (torch.arange(logmel.shape[-1])[None, :] < n_frames[:, None])[:, None, :]
    count = mask.sum(-1, keepdim=True)
    mean = (logmel * mask).sum(-1, keepdim=True) / count
    var = ((logmel - mean).pow(2) * mask).sum(-1, keepdim=True) / count
    return torch.where(mask, (logmel - mean) / (var + 1e-5).sqrt(), 0.0)


compiled = torch.compile(features)
for step in range(3):
    lens = torch.tensor([3200, 2400, 1600, 2000])
    waves = [torch.randn(int(n)) for n in lens]
    batch = torch.stack([F.pad(w, (0, 3200 - w.numel())) for w in waves])
    out = compiled(batch, lens)
    ref = features(batch, lens)
    print(f"step {step}: feats {tuple(out.shape)}, valid mean {out[0].mean():.4f}, "
          f"max diff {(out - ref).abs().max():.1e}")
