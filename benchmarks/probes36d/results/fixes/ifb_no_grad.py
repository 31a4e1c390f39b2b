# Encoder that records activation statistics for monitoring, except when run under
# torch.inference_mode(); served compiled under inference_mode.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 64)
        self.out = nn.Linear(64, 8)
        self.register_buffer("act_mean", torch.zeros(()))

    def forward(self, x):
        h = torch.tanh(self.proj(x))
        if not torch.is_inference_mode_enabled():
            self.act_mean.mul_(0.9).add_(0.1 * h.mean().detach())
        return self.out(h).log_softmax(-1)


model = Encoder().eval()
cmodel = torch.compile(model)
for step in range(3):
    x = torch.randn(16, 32)
    with torch.no_grad():
        y = cmodel(x)
        ref = model(x)
    print(step, round(y.sum().item(), 4), "max diff", (y - ref).abs().max().item())
