"""A GPU augmentation step compiled with torch.compile: batch-level histogram equalization of
the luminance (auto-exposure) before the images go to a model. The histogram is taken with
torch.histc, for which Inductor has no Triton lowering (lowering.py: make_fallback(aten.histc)):
it logs "Using FallbackKernel: aten.histc" and the step splits into Triton kernels before and
after the ATen histogram, with the luminance written out in between. The fix: quantize the
luminance and count with a scatter_add into a zeros(BINS) tensor, which Inductor generates as
Triton code (atomic adds) instead of an ATen call."""
import torch

device = "cuda"
torch.manual_seed(0)
BINS = 256


@torch.compile
def equalize(images):
    lum = 0.299 * images[:, 0] + 0.587 * images[:, 1] + 0.114 * images[:, 2]
    hist = torch.histc(lum, bins=BINS, min=0.0, max=1.0)
    cdf = hist.cumsum(0) / hist.sum()
    idx = (lum * (BINS - 1)).round().long().clamp(0, BINS - 1)
    gain = cdf[idx] / lum.clamp_min(1e-3)
    return (images * gain.unsqueeze(1)).clamp(0.0, 1.0)


for step in range(6):
    images = torch.rand(64, 3, 256, 256, device=device) ** (1.5 + 0.25 * step)  # darker each batch
    out = equalize(images)
    print(f"batch {step}: mean brightness {images.mean().item():.3f} -> {out.mean().item():.3f}")
