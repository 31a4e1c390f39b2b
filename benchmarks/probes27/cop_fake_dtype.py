"""A CPU op written with NumPy (a smoothing filter), wrapped with torch.library.custom_op so
torch.compile can call it. np.convolve computes in float64, so the kernel returns float64;
its register_fake says the output has the input's dtype (float32, empty_like). Eager is fine
(the next op promotes); the compiled model is traced with a float32 output."""
import numpy as np
import torch
import torch.nn as nn


@torch.library.custom_op("probes27::smooth", mutates_args=())
def smooth(x: torch.Tensor) -> torch.Tensor:
    k = np.array([0.25, 0.5, 0.25])
    rows = [np.convolve(r, k, mode="same") for r in x.detach().cpu().numpy()]
    return torch.from_numpy(np.stack(rows))  # float64


@smooth.register_fake
def _(x):
    return torch.empty_like(x)  # says float32


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(16, 16)
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(self.inp(x))
        s = smooth(h)
        return self.out((h + s).float())


torch.manual_seed(0)
model = Denoiser()
x = torch.randn(8, 16)
with torch.no_grad():
    ref = model(x)
    out = torch.compile(model)(x)
print("max diff compiled vs eager: %.4g" % (out - ref).abs().max().item())
