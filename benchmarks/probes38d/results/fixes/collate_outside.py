# Serving helper: takes a list of per-request sample dicts, collates them with the stock
# DataLoader collate function, and runs the model; the whole helper is compiled.
import torch
import torch.nn as nn
from torch.utils.data import default_collate

torch.manual_seed(0)


class Ranker(nn.Module):
    def __init__(self, n_items=50, d=16):
        super().__init__()
        self.item = nn.Embedding(n_items, d)
        self.dense = nn.Linear(4, d)
        self.out = nn.Linear(d, 1)

    def forward(self, item_id, dense):
        return self.out(torch.relu(self.item(item_id) + self.dense(dense))).squeeze(-1)


model = Ranker().eval()


cmodel = torch.compile(model)


def serve(requests):
    batch = default_collate(requests)
    return torch.sigmoid(cmodel(batch["item_id"], batch["dense"]))


with torch.no_grad():
    for step in range(3):
        reqs = [{"item_id": torch.randint(0, 50, ()), "dense": torch.randn(4)} for _ in range(6)]
        p = serve(reqs)
        print(f"step {step}: top request {int(p.argmax())} p {[round(v, 4) for v in p.tolist()]}")
