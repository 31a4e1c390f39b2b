# Retrieval re-ranking: the candidate generator returns a Python list of item ids
# per request, and the compiled scorer turns it into a tensor itself.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self, n_users=100, n_items=500, dim=16):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)

    def forward(self, user_id, cand_ids):
        ids = torch.tensor(cand_ids, dtype=torch.long)
        u = F.normalize(self.user(user_id), dim=-1)
        v = F.normalize(self.item(ids), dim=-1)
        return v @ u


model = Scorer().eval()
score = torch.compile(model)
g = torch.Generator().manual_seed(1)
with torch.no_grad():
    for req in range(6):
        n = 3 + req
        cands = torch.randint(0, 500, (n,), generator=g).tolist()
        s = score(torch.tensor(req), cands)
        best = cands[int(s.argmax())]
        print(f"request {req}: {n} candidates, best item {best}, score {s.max().item():.4f}")
