# Hand-rolled framing for a spectrogram: frames are views made by unfold, and the window
# is applied in place to save a copy (frames overlap in memory: hop < frame length).
import torch

torch.manual_seed(0)
FRAME, HOP = 64, 16
WINDOW = torch.hann_window(FRAME)


def power_spectrogram(wave):
    wave = wave - wave.mean(dim=-1, keepdim=True)
    frames = wave.unfold(-1, FRAME, HOP)
    frames = frames * WINDOW
    spec = torch.fft.rfft(frames, dim=-1)
    return spec.abs().pow(2).mean(dim=1)


batch = torch.randn(3, 800)
eager = power_spectrogram(batch.clone())
print("eager spectrum:", [round(v, 3) for v in eager[0, :4].tolist()])

compiled = torch.compile(power_spectrogram)
for step in range(3):
    x = torch.randn(3, 800)
    out = compiled(x.clone())
    print(f"step {step}: spectrum {tuple(out.shape)}, total power {out.sum():.2f}")
