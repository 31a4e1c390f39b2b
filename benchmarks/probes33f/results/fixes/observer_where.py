# A hand-written fake-quant module for QAT: the observer updates min/max while
# observer_on is set; after calibration it is switched off and frozen.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class FakeQuant8(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("observer_on", torch.tensor(1, dtype=torch.uint8))
        self.register_buffer("lo", torch.tensor(0.0))
        self.register_buffer("hi", torch.tensor(0.0))

    def forward(self, x):
        on = self.observer_on.bool()
        self.lo.copy_(torch.where(on, torch.minimum(self.lo, x.detach().min()), self.lo))
        self.hi.copy_(torch.where(on, torch.maximum(self.hi, x.detach().max()), self.hi))
        scale = (self.hi - self.lo).clamp_min(1e-8) / 255
        zp = torch.round(-self.lo / scale).clamp(0, 255)
        q = torch.clamp(torch.round(x / scale) + zp, 0, 255)
        xq = (q - zp) * scale
        return x + (xq - x).detach()


model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), FakeQuant8(), nn.Linear(64, 3))
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
x = torch.randn(1024, 20)
y = (x[:, :3] @ torch.randn(3, 3)).argmax(1)
for step in range(10):
    if step == 4:
        model[2].observer_on.fill_(0)
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}  loss {loss.item():.4f}  range [{model[2].lo.item():.3f}, {model[2].hi.item():.3f}]")
