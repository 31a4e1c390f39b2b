# after pytorch/pytorch#103183: [inductor] Support complex fallback for convert_element_type, _fft_c2c, view_as_real to support GoogleFnet with cpp wrapper
"""Perf, many fallbacks of one cause: an FNet-style token mixer takes the real part of a 2-D
FFT. The FFT's complex output makes Inductor warn once that it does not generate code for
complex operators, and every op on the complex tensor runs as an ATen fallback kernel."""
import torch

torch._inductor.config.fx_graph_cache = False  # the fallbacks are decided on a real lowering


def fourier_mix(x):
    return torch.fft.fft2(x.to(torch.complex64)).real  # <- diagnosis


torch.compile(fourier_mix)(torch.randn(2, 8, 16))
print("ok")
