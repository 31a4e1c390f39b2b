# Two-tower retrieval trained with in-batch negatives and logQ correction:
# item sampling probabilities come from a popularity table indexed by item id.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_USERS, N_ITEMS, DIM = 200, 500, 16


class Tower(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return F.normalize(self.proj(self.emb(ids)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, popularity, temperature=0.1):
        super().__init__()
        self.users, self.items = Tower(N_USERS, DIM), Tower(N_ITEMS, DIM)
        self.register_buffer("log_q", torch.log(popularity / popularity.sum()))
        self.temperature = temperature

    def forward(self, batch: dict):
        u, v = self.users(batch["user"]), self.items(batch["item"])
        logits = u @ v.t() / self.temperature - self.log_q[batch["item"]][None, :]
        labels = torch.arange(logits.shape[0])
        return F.cross_entropy(logits, labels)


popularity = torch.rand(N_ITEMS) + 0.1
model = TwoTower(popularity)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
step_fn = torch.compile(model)
for step in range(4):
    batch = {"user": torch.randint(0, N_USERS, (64,)), "item": torch.randint(0, N_ITEMS, (64,))}
    loss = step_fn(batch)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
