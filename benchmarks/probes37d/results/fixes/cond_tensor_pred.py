# A gated residual block: the user switches the residual path on/off per batch with torch.cond,
# expecting cond to keep both branches in one graph (no recompiles). The flag is a Python bool.
import torch
import torch.nn as nn

torch.manual_seed(0)


class GatedBlock(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x, use_residual: bool):
        h = self.proj(self.norm(x))
        return torch.cond(use_residual,
                          lambda h, x: torch.relu(h) + x,
                          lambda h, x: torch.relu(h),
                          (h, x))


model = GatedBlock().eval()
cmodel = torch.compile(model)
x = torch.randn(8, 16)
with torch.no_grad():
    for step in range(6):
        use_residual = step % 2 == 0
        out = cmodel(x, torch.tensor(use_residual))
        ref = model(x, use_residual)
        print(f"step {step} residual={use_residual} sum={out.sum().item():.4f} "
              f"maxdiff={(out - ref).abs().max().item():.2e}")
