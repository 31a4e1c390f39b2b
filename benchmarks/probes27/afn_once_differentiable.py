"""A hand-written clipped-ReLU with a custom gradient (straight-through above the clip), as
torch.autograd.Function with setup_context. forward returns the activation and how many
units were clipped (a Python int, for logging); it saves its own output (not an input) for
backward, and the backward is @once_differentiable. The compiled block runs it in a
training loop."""
import torch
import torch.nn as nn
from torch.autograd.function import once_differentiable


class ClippedReLU(torch.autograd.Function):
    @staticmethod
    def forward(x, cap):
        y = x.clamp(0, cap)
        return y, int((x > cap).sum())

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, cap = inputs
        y, _ = output
        ctx.save_for_backward(y)
        ctx.cap = cap

    @staticmethod
    @once_differentiable
    def backward(ctx, gy, gcount):
        (y,) = ctx.saved_tensors
        return gy * (y > 0).to(gy.dtype), None


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)
        self.head = nn.Linear(32, 1)

    def forward(self, x):
        h, clipped = ClippedReLU.apply(self.fc(x), 1.0)
        return self.head(h), clipped


torch.manual_seed(0)
model = Block()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
cmodel = torch.compile(model)
for step in range(3):
    x, y = torch.randn(16, 32), torch.randn(16, 1)
    out, clipped = cmodel(x)
    loss = nn.functional.mse_loss(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} clipped {clipped}")
