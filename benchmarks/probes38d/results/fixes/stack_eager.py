# A compiled "collate + forward" helper: stack the samples when they all have the same
# length, fall back to padding when stacking fails (ragged batch).
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.proj = nn.Linear(d, 1)

    def forward(self, x):
        return self.proj(x).squeeze(-1).sum(1)


model = Scorer().eval()


def collate_and_score(samples):
    try:
        x = torch.stack(samples)  # fast path: equal lengths
    except RuntimeError:
        x = pad_sequence(samples, batch_first=True)  # ragged batch: zero-pad
    return model(x)


score = collate_and_score

with torch.no_grad():
    for step, lens in enumerate([(5, 5, 5), (5, 3, 4), (2, 2, 2), (6, 1, 3)]):
        samples = [torch.randn(L, 6) for L in lens]
        s = score(samples)
        print(f"step {step} lens {lens}: scores {[round(v, 4) for v in s.tolist()]}")
