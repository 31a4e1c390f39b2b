# Hourly load forecaster: the time-of-day fraction is computed in Python from the timestamp
# and passed as a float; the compiled forward turns it into sin/cos features.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)


class LoadNet(nn.Module):
    def __init__(self, window=24):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(window + 2, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, window, frac_of_day):
        phase = torch.tensor(frac_of_day) * (2 * math.pi)
        tod = torch.stack([phase.sin(), phase.cos()]).expand(window.shape[0], 2)
        return self.net(torch.cat([window, tod], dim=1))


model = LoadNet()
cmodel = torch.compile(model)
hist = torch.randn(4, 24)
t0 = 1_700_000_000  # unix seconds, on the hour
with torch.no_grad():
    for step in range(10):
        ts = t0 + 3600 * step
        frac = (ts % 86400) / 86400.0
        pred = cmodel(hist, frac)
        hist = torch.cat([hist[:, 1:], pred], dim=1)
        print(step, round(frac, 4), [round(v, 4) for v in pred.squeeze(1).tolist()])
