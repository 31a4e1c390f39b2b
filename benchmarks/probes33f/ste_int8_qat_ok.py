# QAT with a straight-through estimator: weights and activations are rounded to
# int8 in forward, scales come from amax each step, gradients pass straight through.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def fake_int8(x, scale):
    q = torch.clamp(torch.round(x / scale), -127, 127) * scale
    return x + (q - x).detach()


class QLinear(nn.Linear):
    def forward(self, x):
        w_scale = self.weight.detach().abs().amax(dim=1, keepdim=True).clamp_min(1e-8) / 127
        x_scale = x.detach().abs().amax().clamp_min(1e-8) / 127
        return F.linear(fake_int8(x, x_scale), fake_int8(self.weight, w_scale), self.bias)


model = nn.Sequential(QLinear(24, 96), nn.GELU(), QLinear(96, 96), nn.GELU(), QLinear(96, 5))
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
x = torch.randn(768, 24)
y = (x[:, :5] + 0.3 * torch.randn(768, 5)).argmax(1)
for step in range(30):
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d}  loss {loss.item():.4f}")
with torch.no_grad():
    acc = (compiled(x).argmax(1) == y).float().mean().item()
print(f"int8-QAT train accuracy {acc:.3f}")
