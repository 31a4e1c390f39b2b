import torch

torch.manual_seed(0)

# Matched filter for pulse detection in sensor recordings of different lengths.
pulse = torch.hann_window(33) * torch.sin(torch.linspace(0, 12.0, 33))
template = pulse.flip(0)


@torch.compile
def fft_filter(signal, kernel):
    out_len = signal.shape[-1] + kernel.shape[-1] - 1
    n_fft = 1 << (out_len - 1).bit_length()
    spec = torch.fft.rfft(signal, n=n_fft) * torch.fft.rfft(kernel, n=n_fft)
    full = torch.fft.irfft(spec, n=n_fft)[..., :out_len]
    return full[..., kernel.shape[-1] // 2: kernel.shape[-1] // 2 + signal.shape[-1]]


recording_lengths = [900, 1100, 1300, 1700, 2100, 2500, 3100, 3700, 4300, 5000]
for rec_id, length in enumerate(recording_lengths):
    noise = 0.5 * torch.randn(4, length)
    onset = length // 3
    noise[:, onset:onset + pulse.numel()] += pulse
    score = fft_filter(noise, template)
    peak = score.argmax(dim=-1)
    print(f"recording {rec_id}: length {length}, true onset {onset + 16}, "
          f"detected {peak.tolist()}")
