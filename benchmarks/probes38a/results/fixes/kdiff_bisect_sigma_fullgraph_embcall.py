# Euler sampler on a Karras sigma schedule (k-diffusion style). The denoiser is
# told its timestep index by looking the current sigma up in the discrete
# training sigmas with bisect; the step is compiled with fullgraph=True.
import bisect
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
N_TRAIN = 50
train_sigmas = [0.02 * math.exp(i * math.log(80 / 0.02) / (N_TRAIN - 1)) for i in range(N_TRAIN)]


def karras(n, smin=0.02, smax=80.0, rho=7.0):
    r = [i / (n - 1) for i in range(n)]
    return [(smax ** (1 / rho) + x * (smin ** (1 / rho) - smax ** (1 / rho))) ** rho for x in r] + [0.0]


class Denoiser(nn.Module):
    def __init__(self, d=8, h=32):
        super().__init__()
        self.temb = nn.Embedding(N_TRAIN, h)
        self.inp = nn.Linear(d, h)
        self.out = nn.Linear(h, d)

    def forward(self, x, sigma, idx):
        h = torch.tanh(self.inp(x / math.sqrt(sigma ** 2 + 1)) + self.temb(idx))
        return x - sigma * self.out(h)


model = Denoiser().eval()


@torch.compile(fullgraph=True)
def euler_step(x, sigma, sigma_next, idx):
    d = (x - model(x, sigma, idx)) / sigma
    return x + d * (sigma_next - sigma)


sigmas = karras(6)
x = torch.randn(4, 8) * sigmas[0]
with torch.no_grad():
    for s, s_next in zip(sigmas[:-1], sigmas[1:]):
        x = euler_step(x, s, s_next, torch.tensor(min(bisect.bisect_left(train_sigmas, s), N_TRAIN - 1)))
print("final mean %.4f std %.4f" % (x.mean().item(), x.std().item()))
