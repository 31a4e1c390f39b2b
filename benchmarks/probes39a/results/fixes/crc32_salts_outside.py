# Hashing trick for categorical features: each feature's ids are salted with a
# stable hash of the feature name so features sharing one table don't collide.
import zlib
import torch
import torch.nn as nn

torch.manual_seed(0)
NUM_BUCKETS = 1000


class HashedCTR(nn.Module):
    def __init__(self, names, dim=8):
        super().__init__()
        self.names = names
        self.table = nn.Embedding(NUM_BUCKETS, dim)
        self.mlp = nn.Sequential(nn.Linear(dim * len(names), 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, feats: dict, salts: dict):
        pooled = []
        for name in self.names:
            salt = salts[name]
            rows = torch.remainder(feats[name] * 31 + salt, NUM_BUCKETS)
            pooled.append(self.table(rows).mean(1))
        return self.mlp(torch.cat(pooled, -1)).squeeze(-1)


names = ["user_id", "item_id", "category"]
model = HashedCTR(names)
opt = torch.optim.Adagrad(model.parameters(), lr=0.05)
cmodel = torch.compile(model)
salts = {n: torch.tensor(zlib.crc32(n.encode()) % NUM_BUCKETS) for n in names}
for step in range(3):
    feats = {n: torch.randint(0, 10**6, (16, 4)) for n in names}
    label = torch.randint(0, 2, (16,)).float()
    loss = nn.functional.binary_cross_entropy_with_logits(cmodel(feats, salts), label)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
