import math

import torch
import torch.nn as nn

import torch._functorch.config  # added: the printed line alone raises AttributeError
torch._functorch.config.autograd_cache_allow_custom_autograd_functions = True


class ScaledGELU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return scale * 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        cdf = 0.5 * (1 + torch.erf(x / math.sqrt(2)))
        pdf = torch.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
        return grad_out * ctx.scale * (cdf + x * pdf), None


class MLP(nn.Module):
    def __init__(self, d=32, scale=1.7):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.scale = scale

    def forward(self, x):
        return self.fc2(ScaledGELU.apply(self.fc1(x), self.scale))


torch.manual_seed(0)
model = MLP()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 32)
target = torch.randn(64, 32)
for step in range(6):
    loss = nn.functional.mse_loss(cmodel(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
