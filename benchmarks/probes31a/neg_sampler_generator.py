import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_USERS, N_ITEMS, DIM, NEGS = 500, 3000, 32, 8


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Sequential(nn.Embedding(N_USERS, DIM), nn.Linear(DIM, DIM))
        self.item = nn.Sequential(nn.Embedding(N_ITEMS, DIM), nn.Linear(DIM, DIM))


model = TwoTower()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sampler_rng = torch.Generator().manual_seed(1234)  # reproducible negatives across runs


@torch.compile
def sampled_softmax_loss(users, pos_items):
    neg_items = torch.randint(0, N_ITEMS, (users.shape[0], NEGS), generator=sampler_rng)
    u = model.user(users)
    cand = torch.cat([pos_items[:, None], neg_items], dim=1)
    logits = torch.einsum("bd,bkd->bk", u, model.item(cand))
    target = torch.zeros(users.shape[0], dtype=torch.long)
    return F.cross_entropy(logits, target)


clicks_u = torch.randint(0, N_USERS, (4096,))
clicks_i = (clicks_u * 7 + torch.randint(0, 5, (4096,))) % N_ITEMS
for epoch in range(3):
    total = 0.0
    for b in range(0, 4096, 1024):
        loss = sampled_softmax_loss(clicks_u[b:b + 1024], clicks_i[b:b + 1024])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total / 4:.4f}")
