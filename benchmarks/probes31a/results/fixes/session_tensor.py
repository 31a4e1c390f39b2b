import torch
import torch.nn as nn

torch.manual_seed(0)
N_ITEMS, DIM = 2000, 16


class NextItemModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.item_emb = nn.Embedding(N_ITEMS, DIM)
        self.gru = nn.GRUCell(DIM, DIM)
        self.out = nn.Linear(DIM, N_ITEMS)

    def forward(self, recent_items):
        ids = recent_items
        h = torch.zeros(1, DIM)
        for v in self.item_emb(ids):
            h = self.gru(v[None], h)
        return self.out(h)[0]


model = NextItemModel().eval()
recommend = torch.compile(model)

# each user's session is a plain Python list of item ids, as read from the event log
sessions = []
g = torch.Generator().manual_seed(1)
for user in range(12):
    length = int(torch.randint(3, 15, (1,), generator=g))
    sessions.append(torch.randint(0, N_ITEMS, (length,), generator=g).tolist())

with torch.no_grad():
    for user, history in enumerate(sessions):
        scores = recommend(torch.tensor(history, dtype=torch.long))
        top = torch.topk(scores, 5).indices.tolist()
        print(f"user {user} history {len(history):2d} items -> recommend {top}")
