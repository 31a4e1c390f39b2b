# Half-precision log-mel front end for an on-device keyword spotter: power spectrogram in
# float16, a hand-built triangular mel filter bank, then dB with a 1e-10 floor (the usual
# `10 * log10(clamp(x, min=1e-10))` from torchaudio's AmplitudeToDB recipe).
import math
import torch

torch.manual_seed(0)
N_FFT, HOP, N_MELS, SR = 128, 32, 16, 8000


def mel_fbank(n_freqs, n_mels, sr):
    mel = lambda f: 2595 * math.log10(1 + f / 700)
    pts = torch.linspace(mel(0), mel(sr / 2), n_mels + 2)
    hz = 700 * (10 ** (pts / 2595) - 1)
    freqs = torch.linspace(0, sr / 2, n_freqs)
    lo, ce, hi = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    tri = torch.minimum((freqs - lo) / (ce - lo), (hi - freqs) / (hi - ce))
    return tri.clamp(min=0)


FB = mel_fbank(N_FFT // 2 + 1, N_MELS, SR).half()


def log_mel(power):
    mel = (FB @ power).float()
    return 10 * torch.log10(torch.clamp(mel, min=1e-10))


wave = torch.randn(2, 2000)
wave[1, 1000:] = 0.0                                   # digital silence at the end of clip 1
spec = torch.stft(wave, N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True)
power = spec.abs().pow(2).half()

eager = log_mel(power)
compiled = torch.compile(log_mel)(power)
print("eager    min dB:", eager.min().item(), " -inf cells:", int(torch.isinf(eager).sum()))
print("compiled min dB:", compiled.min().item(), " -inf cells:", int(torch.isinf(compiled).sum()))
print("frames equal:", bool(torch.equal(eager, compiled)))
print("clip 1 last frame, mel 0: eager", eager[1, 0, -1].item(), "compiled", compiled[1, 0, -1].item())
