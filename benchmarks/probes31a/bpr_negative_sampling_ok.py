import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_USERS, N_ITEMS, DIM, BATCH = 300, 800, 32, 256


class MatrixFactorization(nn.Module):
    def __init__(self):
        super().__init__()
        self.users = nn.Embedding(N_USERS, DIM)
        self.items = nn.Embedding(N_ITEMS, DIM)
        nn.init.normal_(self.users.weight, std=0.1)
        nn.init.normal_(self.items.weight, std=0.1)

    def forward(self, u, pos, neg):
        eu = self.users(u)
        pos_score = (eu * self.items(pos)).sum(-1)
        neg_score = (eu * self.items(neg)).sum(-1)
        return -F.logsigmoid(pos_score - neg_score).mean()


model = MatrixFactorization()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
bpr_loss = torch.compile(model)

interactions = torch.stack([torch.randint(0, N_USERS, (5000,)), torch.randint(0, N_ITEMS, (5000,))])
seen = torch.zeros(N_USERS, N_ITEMS, dtype=torch.bool)
seen[interactions[0], interactions[1]] = True

for epoch in range(3):
    perm = torch.randperm(interactions.shape[1])
    for b in range(0, 1024, BATCH):
        u, pos = interactions[:, perm[b:b + BATCH]]
        neg = torch.randint(0, N_ITEMS, (u.shape[0],))
        loss = bpr_loss(u, pos, neg)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} bpr loss {loss.item():.4f}")


@torch.compile
def recommend(user_ids, k=10):
    scores = model.users(user_ids) @ model.items.weight.T
    scores = scores.masked_fill(seen[user_ids], float("-inf"))
    return torch.topk(scores, k, dim=-1).indices


with torch.no_grad():
    print("top-10 for users 0..2:", recommend(torch.arange(3)).tolist())
