"""Online anomaly scorer over a rolling sensor history.

`hist` holds the last WINDOW readings; the scorer gets both the whole buffer and
`hist[1:]` (the readings that survive the next shift), decays the buffer in place
and flattens the surviving part as the model's feature vector.  Source:
pytorch/pytorch#198095 (output that is a view of an aliased input with a storage
offset: `ta.view(-1)` asserts on the ViewMeta shape under torch.compile).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

WINDOW, CH = 5, 6


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear((WINDOW - 1) * CH, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, feats):
        return torch.sigmoid(self.mlp(feats))


def decay_and_features(hist, surviving, decay):
    hist.mul_(decay)               # exponential forgetting of the whole buffer
    return surviving.view(-1)      # flattened surviving readings


def main():
    scorer = Scorer().eval()
    features = torch.compile(decay_and_features)
    hist = torch.zeros(WINDOW, CH)
    scores = []
    with torch.no_grad():
        for t in range(8):
            reading = torch.randn(CH) + (3.0 if t == 6 else 0.0)
            hist = torch.roll(hist, -1, dims=0)
            hist[-1] = reading
            feats = features(hist, hist[1:], 0.9)
            scores.append(scorer(feats).item())
            print(f"t={t} score {scores[-1]:.4f}")
    print(f"max score {max(scores):.4f} at t={scores.index(max(scores))}")


if __name__ == "__main__":
    main()
