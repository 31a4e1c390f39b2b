import torch
import torch.nn as nn

torch.manual_seed(0)
N_USERS, N_ITEMS, N_CATEGORIES = 500, 1000, 20


class TwoTowerCTR(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, dim)
        self.item_emb = nn.Embedding(N_ITEMS, dim)
        self.cat_emb = nn.Embedding(N_CATEGORIES, 8)
        self.mlp = nn.Sequential(nn.Linear(2 * dim + 8, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, users, items, cats):
        feats = torch.cat([self.user_emb(users), self.item_emb(items), self.cat_emb(cats)], dim=-1)
        return torch.sigmoid(self.mlp(feats)).squeeze(-1)


model = TwoTowerCTR().eval()
predict = torch.compile(model)

# the item catalogue grew since the model was trained: new items get ids past the table
batches = [
    (torch.randint(0, N_USERS, (16,)), torch.randint(0, N_ITEMS, (16,)), torch.randint(0, N_CATEGORIES, (16,))),
    (torch.randint(0, N_USERS, (16,)), torch.randint(0, N_ITEMS, (16,)), torch.randint(0, N_CATEGORIES, (16,))),
    (torch.randint(0, N_USERS, (16,)), torch.randint(0, N_ITEMS + 40, (16,)), torch.randint(0, N_CATEGORIES, (16,))),
]
with torch.no_grad():
    for i, (u, it, c) in enumerate(batches):
        ctr = predict(u, it, c)
        print(f"batch {i}: mean ctr {ctr.mean().item():.4f}, top item {it[ctr.argmax()].item()}")
