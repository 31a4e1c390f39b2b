# Click-through-rate model in the wide & deep style: one EmbeddingBag table per categorical
# feature, the active features of this experiment summed into one vector (first-order
# "bag of features"), a deep MLP on top. The training job is restarted often (preemptible
# workers), so it relies on the Inductor cache to skip the compile after a restart.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
TABLES = {"user_id": 5000, "item_id": 3000, "category": 60, "device": 8, "hour": 24, "region": 40}
ACTIVE = {"user_id", "item_id", "category", "device", "hour"}  # this experiment drops "region"
D = 32


class WideDeep(nn.Module):
    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleDict({n: nn.EmbeddingBag(size, D, mode="mean") for n, size in TABLES.items()})
        self.active = ACTIVE
        self.deep = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, ids, offsets):
        x = sum(self.tables[name](ids[name], offsets[name]) for name in self.active)
        return self.deep(x).squeeze(1)


def batch(B=128, per_bag=2):
    ids = {n: torch.randint(0, size, (B * per_bag,)) for n, size in TABLES.items()}
    offsets = {n: torch.arange(0, B * per_bag, per_bag) for n in TABLES}
    clicks = (ids["category"][::per_bag] % 3 == 0).float()
    return ids, offsets, clicks


model = WideDeep()
opt = torch.optim.Adagrad(model.parameters(), lr=0.05)
compiled = torch.compile(model)
for step in range(5):
    ids, offsets, clicks = batch()
    loss = F.binary_cross_entropy_with_logits(compiled(ids, offsets), clicks)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} logloss {loss.item():.4f}")
