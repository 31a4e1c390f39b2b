# A dataset of clips recorded at different sample rates, resampled to 16 kHz by linear
# interpolation (scale_factor = target / source), then a peak-normalised log-energy feature.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
TARGET_SR = 16000


def resample_and_frame(wave, sr):
    out_len = wave.shape[-1] * TARGET_SR // sr
    res = F.interpolate(wave[:, None], size=out_len, mode="linear",
                        align_corners=False)[:, 0]
    res = res / res.abs().amax(dim=-1, keepdim=True).clamp(min=1e-8)
    frames = res.unfold(-1, 80, 40)
    return 10 * torch.log10(frames.pow(2).mean(-1).clamp(min=1e-10))


frontend = torch.compile(resample_and_frame)

clips = [(8000, 80), (11025, 110), (22050, 220), (32000, 320), (44100, 441), (48000, 480)]
for i, (sr, n) in enumerate(clips * 2):
    wave = torch.randn(2, n)
    feats = frontend(wave, sr)
    ref = resample_and_frame(wave, sr)
    print(f"clip {i}: sr {sr}, {n} samples -> {tuple(feats.shape)} frames, "
          f"mean {feats.mean():.3f} dB, max diff {(feats - ref).abs().max():.1e}")
