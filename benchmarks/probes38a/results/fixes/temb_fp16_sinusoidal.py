# Half-precision diffusion denoiser: the sinusoidal timestep embedding is built
# from the float16 timestep tensor (as the model runs in float16 end to end),
# and compiled output is compared with eager on the same inputs.
import math
import torch
import torch.nn as nn
torch._inductor.config.emulate_precision_casts = True

torch.manual_seed(0)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=t.dtype) / half)
    args = t[:, None] * freqs[None, :]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, d=16, temb=32, h=64):
        super().__init__()
        self.temb = temb
        self.t_mlp = nn.Sequential(nn.Linear(temb, h), nn.SiLU(), nn.Linear(h, h))
        self.inp = nn.Linear(d, h)
        self.out = nn.Linear(h, d)

    def forward(self, x, t):
        h = self.inp(x) + self.t_mlp(timestep_embedding(t, self.temb))
        return self.out(torch.nn.functional.silu(h))


model = Denoiser().half().eval()
cmodel = torch.compile(model)
x = torch.randn(4, 16).half()
t = torch.tensor([999, 731, 402, 57]).half()
with torch.no_grad():
    e = model(x, t)
    c = cmodel(x, t)
    emb_diff = (timestep_embedding(t, 32) - torch.compile(timestep_embedding)(t, 32)).abs().max()
print("eps eager   ", e[0, :4].tolist())
print("eps compiled", c[0, :4].tolist())
print("max |compiled - eager| eps %.4f, embedding %.4f" % ((c - e).abs().max().item(), emb_diff.item()))
