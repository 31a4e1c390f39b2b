"""Failure (dynamo): pytorch/pytorch#191137. `torch._weight_norm(v, g, 0)` with a 1-D gain runs
in eager, but its decomposition broadcasts the gain against the wrong dimension, so Dynamo's
fake-tensor run raises "Attempting to broadcast a dimension". The program's call is right:
torch's fake path is not (give the gain shape (out, 1), as the parametrization stores it)."""
import torch
import torch.nn as nn


class WeightNormLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        w = torch.randn(d_out, d_in)
        self.v = nn.Parameter(w)
        self.g = nn.Parameter(w.norm(dim=1))

    def forward(self, x):
        w = torch._weight_norm(self.v, self.g, 0)  # <- diagnosis
        return nn.functional.linear(x, w)


torch.manual_seed(0)
layer = WeightNormLinear(6, 4)
print(torch.compile(layer, backend="eager")(torch.randn(2, 6)).shape)
