# A test-style script that turns every warning into an error, so that numerical warnings
# (e.g. from a deprecated API or a lossy cast) fail loudly, then compiles its model.
import warnings

import torch
import torch.nn as nn


torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.Linear(32, 1))

    def forward(self, x):
        return torch.sigmoid(self.body(x)).squeeze(-1)


model = Scorer().eval()
compiled = torch.compile(model)
warnings.simplefilter("error")  # moved after torch.compile
x = torch.randn(5, 10)
with torch.no_grad():
    ref = model(x)
    out = compiled(x)
print("scores", [round(v, 4) for v in ref.tolist()])
print("max diff", float((out - ref).abs().max()) < 1e-5)
