"""Multi-label image-tag classifier trained with a multi-label margin loss.

Correct cousin of mlml_tagger_padded_targets.py: the same hinge loss as
F.multilabel_margin_loss, written out with a multi-hot mask built from the
-1 padded targets.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_TAGS = 8
FEAT = 16


def make_batch(n):
    feats = torch.randn(n, FEAT)
    targets = torch.full((n, NUM_TAGS), -1, dtype=torch.long)
    for i in range(n):
        k = int(torch.randint(1, 4, ()).item())
        tags = torch.randperm(NUM_TAGS)[:k]
        targets[i, :k] = tags          # real tags first, then -1 padding
        feats[i, tags] += 2.0          # make the tags learnable
    return feats, targets


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(FEAT, 32), nn.ReLU(), nn.Linear(32, NUM_TAGS))

    def forward(self, x):
        return self.body(x)


model = Tagger()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def multilabel_hinge(scores, y):
    valid = (y >= 0).float()
    pos = torch.zeros_like(scores).scatter_add_(1, y.clamp_min(0), valid) > 0
    neg = ~pos
    margins = F.relu(1.0 - (scores[:, :, None] - scores[:, None, :]))   # [n, i, j]
    pair = pos[:, :, None] & neg[:, None, :]
    return (margins * pair).sum((1, 2)).div(scores.shape[1]).mean()


@torch.compile
def train_step(x, y):
    scores = model(x)
    loss = multilabel_hinge(scores, y)
    return loss


batches = [make_batch(32) for _ in range(6)]
for epoch in range(3):
    total = 0.0
    for x, y in batches:
        opt.zero_grad()
        loss = train_step(x, y)
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total / len(batches):.4f}")

with torch.no_grad():
    x, y = make_batch(64)
    pred = model(x).topk(1, dim=1).indices[:, 0]
    hit = (y == pred[:, None]).any(dim=1).float().mean()
    print(f"top1 tag hit rate {hit:.3f}")
