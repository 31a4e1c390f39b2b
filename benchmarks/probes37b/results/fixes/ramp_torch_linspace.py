# Variable-length sensor sequences: append a normalised time-position channel (0 -> 1 over the
# sequence) before a small MLP head. Each batch has its own length; the ramp comes from numpy.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class RampHead(nn.Module):
    def __init__(self, ch=3, hidden=16):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(ch + 1, hidden), nn.GELU(), nn.Linear(hidden, 2))

    def forward(self, x):  # x: [B, L, ch]
        B, L, _ = x.shape
        t = torch.linspace(0.0, 1.0, L)
        t = t.view(1, L, 1).expand(B, L, 1)
        h = self.mlp(torch.cat([x, t], dim=-1))
        return h.mean(1)


model = RampHead().eval()
cmodel = torch.compile(model)
with torch.no_grad():
    for i, L in enumerate([50, 64, 37, 81, 45, 72, 58]):
        x = torch.randn(4, L, 3)
        out = cmodel(x)
        print(f"batch {i} len {L}: out sum {out.sum().item():.4f} matches eager {torch.allclose(out, model(x), atol=1e-5)}")
