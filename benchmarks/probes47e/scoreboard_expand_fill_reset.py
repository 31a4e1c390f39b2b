# Per-class best-score tracker for an evaluation loop with several heads. At the start
# of each epoch the tracker resets its table; the table is a broadcast view
# (expand) of one row shared by every head, and the reset writes into that view.
import torch
import torch.nn as nn

torch.manual_seed(0)


class ScoreBoard(nn.Module):
    def __init__(self, n_heads, floor):
        super().__init__()
        self.n_heads = n_heads
        self.floor = floor

    def forward(self, best, scores):  # best: [C] running best, scores: [C] this epoch
        table = best.expand(self.n_heads, -1)  # one row, seen by every head
        table.fill_(self.floor)  # reset for the new epoch
        return torch.maximum(best, scores)


board = torch.compile(ScoreBoard(n_heads=3, floor=2.0))
best = torch.tensor([-1.0, -0.5, 0.0, 0.5])
for epoch in range(3):
    scores = torch.linspace(0.0, 3.0, 4) + epoch
    best = board(best.clone(), scores)
    print("epoch %d best %s" % (epoch, best.tolist()))
