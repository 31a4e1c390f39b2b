"""Phase features of a denoised I/Q signal, compiled for CPU with a faster tanh.

The front end removes small-amplitude noise with Tanhshrink (x - tanh x) on the in-phase
and quadrature channels and then takes the phase with atan2. To speed up the tanh in the
generated C++ kernels, the script turns on Inductor's decomposed tanh.

Source: PyTorch test test/inductor/test_cpu_repro.py::
CPUReproTests::test_tanh_atan2_use_decompose_tanh (asserts the compiled result differs
from eager when cpp.use_decompose_tanh is on).
"""
import os

os.environ["TORCHINDUCTOR_CPP_USE_DECOMPOSE_TANH"] = "1"  # faster tanh in CPU kernels

import math

import torch
import torch.nn as nn

torch.manual_seed(0)


class PhaseFrontEnd(nn.Module):
    def __init__(self):
        super().__init__()
        self.shrink = nn.Tanhshrink()

    def forward(self, iq):  # iq: (batch, 2, frames, bins)
        i_d = self.shrink(iq[:, 0])
        q_d = self.shrink(iq[:, 1])
        phase = torch.atan2(q_d, i_d)
        quadrant = torch.floor((phase + math.pi) / (math.pi / 2)).clamp(0, 3)
        return phase, quadrant


frontend = torch.compile(PhaseFrontEnd())

with torch.no_grad():
    for block in range(3):
        iq = torch.randn(4, 2, 32, 64) * 0.3
        phase, quadrant = frontend(iq)
        counts = torch.bincount(quadrant.flatten().long(), minlength=4).tolist()
        print(f"block {block}: mean phase={phase.mean().item():.6f} quadrant counts={counts}")
