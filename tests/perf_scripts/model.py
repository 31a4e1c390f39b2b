"""A small CPU model for `compdiag perf`: a linear layer and a long pointwise tail (GELU,
tanh, scaling) that Inductor fuses into a few C++ kernels while eager runs one op at a time."""
import sys

import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(256, 256)
        self.scale = torch.nn.Parameter(torch.full((256,), 0.9))

    def forward(self, x):
        y = self.lin(x)
        for _ in range(6):
            y = torch.nn.functional.gelu(y) * self.scale + 0.1 * torch.tanh(y)
        return y.sum(dim=-1)


torch.manual_seed(0)
model = Model().eval()
compiled = torch.compile(model)
x = torch.randn(512, 256)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
with torch.no_grad():
    for _ in range(steps):
        out = compiled(x)
print("ok", round(float(out.sum()), 3))
