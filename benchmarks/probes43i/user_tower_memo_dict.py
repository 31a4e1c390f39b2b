"""Recommendation scoring service.  Each request names a user and a slate of candidate
items.  The user tower output is memoised in a dict on the module so that repeat users
skip the user tower; the whole scorer is compiled."""
import torch
import torch.nn as nn

torch.manual_seed(0)
N_USERS, N_ITEMS, DIM = 50, 200, 16


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, DIM)
        self.item_emb = nn.Embedding(N_ITEMS, DIM)
        self.user_tower = nn.Sequential(nn.Linear(DIM, DIM), nn.Tanh(), nn.Linear(DIM, DIM))
        self.item_tower = nn.Sequential(nn.Linear(DIM, DIM), nn.Tanh(), nn.Linear(DIM, DIM))
        self.user_cache = {}

    def user_vector(self, user_id):
        if user_id not in self.user_cache:
            u = self.user_tower(self.user_emb(torch.tensor(user_id)))
            self.user_cache[user_id] = u
        return self.user_cache[user_id]

    def forward(self, user_id, item_ids):
        u = self.user_vector(user_id)
        items = self.item_tower(self.item_emb(item_ids))
        return items @ u


scorer = Scorer().eval()
compiled = torch.compile(scorer)

g = torch.Generator().manual_seed(7)
requests = []
for rid in range(16):
    user = int(torch.randint(0, 12, (1,), generator=g))
    slate = torch.randint(0, N_ITEMS, (8,), generator=g)
    requests.append((rid, user, slate))

with torch.no_grad():
    for rid, user, slate in requests:
        scores = compiled(user, slate)
        best = slate[scores.argmax()].item()
        print(f"req {rid:2d} user {user:2d}: best item {best:3d} score {scores.max().item():.4f}")
print(f"cached users: {len(scorer.user_cache)}")
