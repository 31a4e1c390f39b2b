"""A tiny click-through model: bag-of-features with nn.EmbeddingBag, trained with SGD, compiled."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class CTRModel(nn.Module):
    def __init__(self, n_features=1000, dim=16):
        super().__init__()
        self.bag = nn.EmbeddingBag(n_features, dim, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, feature_ids, offsets):
        return self.mlp(self.bag(feature_ids, offsets)).squeeze(-1)


model = CTRModel()
step_fn = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.BCEWithLogitsLoss()

g = torch.Generator().manual_seed(0)
for step in range(8):
    counts = torch.randint(1, 6, (32,), generator=g)
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)[:-1]])
    feature_ids = torch.randint(0, 1000, (int(counts.sum()),), generator=g)
    clicks = torch.randint(0, 2, (32,), generator=g).float()
    loss = loss_fn(step_fn(feature_ids, offsets), clicks)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
