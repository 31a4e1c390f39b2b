# Spectral denoising of a batch of float64 signals: rfft, keep the 8 strongest frequency bins
# (topk on the magnitude) plus a low-pass band, apply a phase shift (fractional delay) on the
# real/imaginary parts, irfft back, and report the running log-energy with logcumsumexp.
# The whole step is compiled.
import math
import torch

torch.manual_seed(0)
N = 256


def denoise(sig, delay):
    spec = torch.fft.rfft(sig, dim=-1)
    re, im = torch.view_as_real(spec).unbind(-1)
    mag = torch.hypot(re, im)
    top = torch.topk(mag, k=8, dim=-1).indices
    keep = torch.zeros_like(mag, dtype=torch.bool).scatter_(-1, top, True)
    freqs = torch.fft.rfftfreq(sig.shape[-1], dtype=sig.dtype)
    keep |= freqs < 0.02
    ang = -2 * math.pi * freqs * delay                        # fractional delay
    re, im = re * torch.cos(ang) - im * torch.sin(ang), re * torch.sin(ang) + im * torch.cos(ang)
    shifted = torch.view_as_complex(torch.stack([re * keep, im * keep], dim=-1))
    out = torch.fft.irfft(shifted, n=sig.shape[-1], dim=-1)
    log_energy = torch.logcumsumexp(2 * torch.log(out.abs() + 1e-12), dim=-1)
    return out, log_energy[..., -1]


t = torch.arange(N, dtype=torch.float64)
clean = torch.sin(2 * math.pi * 5 * t / N) + 0.5 * torch.cos(2 * math.pi * 17 * t / N)
compiled = torch.compile(denoise)
for step in range(3):
    sig = clean + 0.3 * torch.randn(4, N, dtype=torch.float64)
    out_c, e_c = compiled(sig, 1.5)
    out_e, e_e = denoise(sig, 1.5)
    err = (out_c - out_e).abs().max().item()
    print(f"step {step}: log-energy {e_c[0].item():.6f}  residual {(out_c - clean).pow(2).mean().item():.6f}"
          f"  max |compiled-eager| {'<1e-10' if err < 1e-10 else err}")
