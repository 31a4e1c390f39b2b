import torch
import torch.nn as nn

torch.manual_seed(0)
CARDINALITIES = [12, 7, 30, 5]


class ChurnModel(nn.Module):
    def __init__(self, n_numeric=8):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(c, 6) for c in CARDINALITIES)
        self.net = nn.Sequential(
            nn.Linear(n_numeric + 6 * len(CARDINALITIES), 64), nn.ReLU(), nn.Linear(64, 1)
        )

    def forward(self, numeric, cats):
        parts = [emb(cats[:, i]) for i, emb in enumerate(self.embs)]
        return self.net(torch.cat([numeric, *parts], dim=1)).squeeze(1)


@torch.compiler.disable
def to_report(probs, customer_ids):
    flagged = [(cid, round(p, 3)) for cid, p in zip(customer_ids, probs.tolist()) if p > 0.5]
    return sorted(flagged, key=lambda t: -t[1])[:3]


model = ChurnModel().eval()
score = torch.compile(model, dynamic=True)

with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    for day, n in enumerate([32, 17, 50, 9]):
        numeric = torch.randn(n, 8)
        cats = torch.stack([torch.randint(0, c, (n,)) for c in CARDINALITIES], dim=1)
        probs = torch.sigmoid(score(numeric, cats).float())
        ids = [f"c{day}-{k}" for k in range(n)]
        print(f"day {day}: {n} customers, at risk {to_report(probs, ids)}")
