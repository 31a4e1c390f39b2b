# Tabular model over a set of named features, compiled once per process; a serving job that
# restarts often relies on the warm FX graph cache from the previous start.
import torch
import torch.nn as nn

torch.manual_seed(0)
FEATURES = {"age", "income", "clicks", "dwell", "country", "device"}


class TabularNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.ModuleDict({n: nn.Linear(1, 8) for n in sorted(FEATURES)})
        self.weight = {n: float(i + 1) for i, n in enumerate(sorted(FEATURES))}
        self.head = nn.Linear(8, 1)

    def forward(self, batch):
        parts = []
        for name in sorted(FEATURES):
            parts.append(torch.relu(self.enc[name](batch[name])) * self.weight[name])
        h = torch.stack(parts, 0).sum(0)
        return self.head(h).squeeze(-1)


model = TabularNet().eval()
cmodel = torch.compile(model)
batch = {n: torch.randn(4, 1) for n in sorted(FEATURES)}
with torch.no_grad():
    out = cmodel(batch)
    ref = model(batch)
print("scores", [round(v, 3) for v in out.tolist()])
print("matches eager", torch.allclose(out, ref, atol=1e-5))
