# Half-precision CPU inference of a small scoring MLP with a hand-written
# RMSNorm on its input projection, to halve the memory of the served model.
import torch
import torch.nn as nn
torch._inductor.config.emulate_precision_casts = True

torch.manual_seed(0)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, h):
        var = h.pow(2).mean(-1, keepdim=True)
        return h * torch.rsqrt(var + self.eps) * self.weight


class Scorer(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        self.inp = nn.Linear(16, dim)
        self.norm = RMSNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.ReLU(), nn.Linear(4 * dim, 1))

    def forward(self, x):
        return self.mlp(self.norm(self.inp(x)))


model = Scorer().half().eval()
serve = torch.compile(model)
with torch.no_grad():
    for batch in range(3):
        feats = (torch.randn(64, 16) * 200).half()
        scores = serve(feats).float()
        print(f"batch {batch}: mean score {scores.mean().item():.3f}  spread {scores.std().item():.3f}")
