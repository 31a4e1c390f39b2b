import random
import torch
import torch.nn as nn

FEATURES = {"user_age": 1, "hour": 24, "device": 8, "country": 16, "price": 1, "referrer": 12}


class CTRModel(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.enc = nn.ModuleDict({name: nn.Linear(width, dim) for name, width in FEATURES.items()})
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(dim, 1))

    def forward(self, batch):
        h = 0
        for name, value in batch.items():
            h = h + self.enc[name](value)
        return self.head(h).squeeze(-1)


def collate(rows):
    present = [name for name in FEATURES if all(name in r for r in rows)]
    return {name: torch.stack([r[name] for r in rows]) for name in present}


def read_log_shard(rng, n=32):
    # each log shard comes from one app version, which logs a subset of the optional fields
    logged = [name for name in FEATURES if name in ("user_age", "hour") or rng.random() < 0.5]
    return [{name: torch.randn(FEATURES[name]) for name in logged} for _ in range(n)]


torch.manual_seed(0)
rng = random.Random(0)
model = CTRModel()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
cmodel = torch.compile(model)
for step in range(24):
    rows = read_log_shard(rng)
    batch = collate(rows)
    clicks = torch.randint(0, 2, (32,)).float()
    logits = cmodel(batch)
    loss = nn.functional.binary_cross_entropy_with_logits(logits, clicks)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 6 == 5:
        print(f"step {step} features {sorted(batch)} loss {loss.item():.4f}")
