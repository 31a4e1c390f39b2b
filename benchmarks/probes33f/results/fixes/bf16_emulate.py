# Before moving a regression model to bf16 activations, measure how much
# rounding the hidden activations to bfloat16 changes its predictions.
import torch
import torch.nn as nn
torch._inductor.config.emulate_precision_casts = True

torch.manual_seed(0)


class SimBF16(nn.Module):
    def forward(self, x):
        return x.to(torch.bfloat16).to(torch.float32)


class Regressor(nn.Module):
    def __init__(self, sim_bf16):
        super().__init__()
        self.fc1 = nn.Linear(32, 256)
        self.fc2 = nn.Linear(256, 1)
        self.round = SimBF16() if sim_bf16 else nn.Identity()

    def forward(self, x):
        h = torch.tanh(self.fc1(x) * 4.0)
        return self.fc2(self.round(h))


base = Regressor(sim_bf16=False).eval()
sim = Regressor(sim_bf16=True).eval()
sim.load_state_dict(base.state_dict())
sim_c = torch.compile(sim)

x = torch.randn(4096, 32)
with torch.no_grad():
    ref = base(x)
    for trial in range(3):
        out = sim_c(x)
        drift = (out - ref).abs()
        print(f"trial {trial}: bf16 activation drift mean {drift.mean().item():.3e}  max {drift.max().item():.3e}")
