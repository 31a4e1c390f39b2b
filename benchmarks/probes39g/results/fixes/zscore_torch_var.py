# Per-series normalisation of price windows before a linear forecaster. The std uses the
# one-pass formula E[x^2] - E[x]^2 (common in rolling-stat code). Prices sit near 1000.
import torch
import torch.nn as nn

torch.manual_seed(0)


def normalise(x):
    m = x.mean(dim=1, keepdim=True)
    var = x.var(dim=1, keepdim=True, unbiased=False)
    return (x - m) / var.clamp_min(1e-6).sqrt(), m, var


class PriceNet(nn.Module):
    def __init__(self, window=96):
        super().__init__()
        self.lin = nn.Linear(window, 1)
        nn.init.constant_(self.lin.weight, 1.0 / window)
        self.lin.weight.data[0, -1] += 1.0

    def forward(self, x):
        z, m, var = normalise(x)
        return self.lin(z).squeeze(1)  # forecast in normalised units


model = PriceNet()
cmodel = torch.compile(model)
prices = 1000.0 + torch.cumsum(torch.randn(4, 96) * 0.5, dim=1)
with torch.no_grad():
    eager = model(prices)
    comp = cmodel(prices)
    print("eager   ", [round(v, 4) for v in eager.tolist()])
    print("compiled", [round(v, 4) for v in comp.tolist()])
    print("max abs diff", round((eager - comp).abs().max().item(), 3))
