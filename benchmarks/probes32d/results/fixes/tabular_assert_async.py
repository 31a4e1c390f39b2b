"""Churn model on a tabular table: one embedding per categorical column, numeric columns
standardised, a guard against category ids the vocabularies have not seen."""
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
torch.manual_seed(0)
CARDINALITY = {"plan": 4, "region": 12, "device": 6, "channel": 9}


class ChurnModel(nn.Module):
    def __init__(self, n_numeric=5, dim=6):
        super().__init__()
        self.embeddings = nn.ModuleDict({c: nn.Embedding(n, dim) for c, n in CARDINALITY.items()})
        self.mlp = nn.Sequential(nn.Linear(dim * len(CARDINALITY) + n_numeric, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, categorical, numeric):
        parts = []
        for col, emb in self.embeddings.items():
            ids = categorical[col]
            torch._assert_async((ids < emb.num_embeddings).all(), f"unseen category in column {col}")
            parts.append(emb(ids))
        parts.append(numeric)
        return self.mlp(torch.cat(parts, dim=1)).squeeze(1)


model = ChurnModel()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)

n_rows = 512
table = {c: rng.integers(0, n, n_rows) for c, n in CARDINALITY.items()}
numeric = rng.normal(size=(n_rows, 5)).astype(np.float32)
churned = (numeric[:, 0] + (table["plan"] == 0) > 0.5).astype(np.float32)
mu, sd = numeric.mean(0), numeric.std(0)

for epoch in range(3):
    for start in range(0, n_rows, 128):
        rows = slice(start, start + 128)
        cats = {c: torch.from_numpy(v[rows]) for c, v in table.items()}
        num = torch.from_numpy((numeric[rows] - mu) / sd)
        loss = nn.functional.binary_cross_entropy_with_logits(compiled(cats, num), torch.from_numpy(churned[rows]))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} bce={loss.item():.4f}")
