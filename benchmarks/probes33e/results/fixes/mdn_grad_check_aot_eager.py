# compiled vs eager gradients of mdn_mixture_ok's model on its first batch, and after 40 steps
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, MixtureSameFamily, Normal

torch.manual_seed(0)


class MixtureDensityNet(nn.Module):
    def __init__(self, n_components=5, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.logits = nn.Linear(hidden, n_components)
        self.means = nn.Linear(hidden, n_components)
        self.raw_scales = nn.Linear(hidden, n_components)

    def forward(self, x):
        h = self.body(x)
        scales = F.softplus(self.raw_scales(h)) + 1e-3
        return MixtureSameFamily(Categorical(logits=self.logits(h)), Normal(self.means(h), scales))


y = torch.rand(1024, 1)
x = y + 0.3 * torch.sin(2 * torch.pi * y) + 0.02 * torch.randn_like(y)
model = MixtureDensityNet()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
compiled = torch.compile(model, backend="aot_eager")


def grads(fn, m, xb, yb):
    m.zero_grad()
    (-fn(xb).log_prob(yb.squeeze(-1)).mean()).backward()
    return {n: p.grad.clone() for n, p in m.named_parameters()}


def ref64(m, xb, yb):
    m64 = copy.deepcopy(m).double()
    return grads(m64, m64, xb.double(), yb.double())


for step in range(41):
    xb, yb = x[(step % 8) * 128:(step % 8 + 1) * 128], y[(step % 8) * 128:(step % 8 + 1) * 128]
    if step % 20 == 0:
        ge, gc, g64 = grads(model, model, xb, yb), grads(compiled, model, xb, yb), ref64(model, xb, yb)
        for n in ["body.2.weight", "means.weight"]:
            rel = lambda a: ((a.double() - g64[n]).norm() / g64[n].norm()).item()
            print(f"step {step} {n}: rel err eager {rel(ge[n]):.2e} compiled {rel(gc[n]):.2e}")
    model.zero_grad()
    (-compiled(xb).log_prob(yb.squeeze(-1)).mean()).backward()
    opt.step()
