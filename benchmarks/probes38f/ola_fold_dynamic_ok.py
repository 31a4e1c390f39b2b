# Hand-built STFT/iSTFT pair: unfold + Hann window + rfft, a spectral low-shelf gain,
# irfft and overlap-add with F.fold; compiled with dynamic=True for variable-length clips.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
FRAME, HOP = 128, 32
WINDOW = torch.hann_window(FRAME)


def shelf_filter(wave, gain):
    T = wave.shape[-1]
    frames = wave.unfold(-1, FRAME, HOP) * WINDOW
    spec = torch.fft.rfft(frames, dim=-1)
    spec = spec * gain
    frames = torch.fft.irfft(spec, n=FRAME, dim=-1) * WINDOW
    out = F.fold(frames.transpose(1, 2), output_size=(1, T), kernel_size=(1, FRAME),
                 stride=(1, HOP))[:, 0, 0]
    norm = F.fold((WINDOW ** 2).expand(frames.shape).transpose(1, 2), output_size=(1, T),
                  kernel_size=(1, FRAME), stride=(1, HOP))[:, 0, 0]
    return out / norm.clamp(min=1e-3)


gain = torch.ones(FRAME // 2 + 1)
gain[:8] = 0.5
compiled = torch.compile(shelf_filter, dynamic=True)
for i, n in enumerate([800, 992, 1216, 1600]):
    x = torch.randn(2, n)
    out = compiled(x, gain)
    ref = shelf_filter(x, gain)
    print(f"clip {i}: {n} samples, rms in {x.pow(2).mean().sqrt():.4f} "
          f"out {out.pow(2).mean().sqrt():.4f}, max diff {(out - ref).abs().max():.1e}")
