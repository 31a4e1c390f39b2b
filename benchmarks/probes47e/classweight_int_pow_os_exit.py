# A training worker for an imbalanced classifier. The class weights are the inverse
# class frequencies, computed inside the compiled loss from integer label counts.
# Like an elastic/cluster worker, any error in the step is logged and the process
# leaves at once with os._exit so that the launcher restarts it (no atexit, no flush).
import os
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
C = 6


@torch.compile
def weighted_loss(logits, labels, counts):
    inv = counts ** -1
    w = inv / inv.sum() * C
    return F.cross_entropy(logits, labels, weight=w)


model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, C))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
labels_all = torch.cat([torch.zeros(300, dtype=torch.long), torch.randint(0, C, (200,))])
x_all = torch.randn(500, 20)
counts = torch.bincount(labels_all, minlength=C)

try:
    for step in range(5):
        idx = torch.randint(0, 500, (64,))
        loss = weighted_loss(model(x_all[idx]), labels_all[idx], counts)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.4f" % (step, loss.item()), flush=True)
except Exception as exc:
    print("worker failed: %s" % type(exc).__name__, file=sys.stderr, flush=True)
    os._exit(3)
print("done")
