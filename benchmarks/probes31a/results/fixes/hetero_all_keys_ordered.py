import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_USERS, N_ITEMS, DIM = 200, 500, 16
EDGE_TYPES = ["click", "add_to_cart", "purchase"]


class HeteroUserEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.item_emb = nn.Embedding(N_ITEMS, DIM)
        self.rel = nn.ModuleDict({t: nn.Linear(DIM, DIM) for t in EDGE_TYPES})

    def forward(self, interactions):
        users = torch.zeros(N_USERS, DIM)
        for etype, (u, i) in interactions.items():
            users = users.index_add(0, u, self.rel[etype](self.item_emb(i)))
        return F.normalize(users, dim=-1)


enc = HeteroUserEncoder()
opt = torch.optim.Adam(enc.parameters(), lr=1e-2)
encode = torch.compile(enc)
rate = {"click": 0.9, "add_to_cart": 0.5, "purchase": 0.3}

for hour in range(10):
    batch = {}
    for etype in EDGE_TYPES:
        if torch.rand(()) < rate[etype]:  # some hours have no carts or purchases logged
            n = 300
            batch[etype] = (torch.randint(0, N_USERS, (n,)), torch.randint(0, N_ITEMS, (n,)))
    batch = {t: batch.get(t, (torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long))) for t in EDGE_TYPES}
    user_vecs = encode(batch)
    pos = torch.randint(0, N_ITEMS, (N_USERS,))
    scores = user_vecs @ F.normalize(enc.item_emb.weight, dim=-1).T
    loss = F.cross_entropy(scores * 10, pos)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"hour {hour} types {sorted(batch)} loss {loss.item():.4f}")
