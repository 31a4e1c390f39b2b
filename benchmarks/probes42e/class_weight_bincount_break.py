"""Imbalanced intent classifier: class-balanced cross-entropy computed per batch.

The loss re-weights classes by their inverse frequency in the current batch
(a common recipe for long-tailed data). The batches come from a sampler that
over-represents class 0, and the last batch of the epoch is short.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_CLASSES = 6
torch.manual_seed(0)


class IntentMLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, n_cls=NUM_CLASSES):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.GELU(),
                                 nn.LayerNorm(d_hidden), nn.Linear(d_hidden, n_cls))

    def forward(self, x):
        return self.net(x)


def balanced_ce(logits, labels):
    # inverse-frequency weights from this batch's label histogram
    counts = torch.bincount(labels, minlength=NUM_CLASSES).float()
    weights = counts.sum() / (NUM_CLASSES * counts.clamp(min=1.0))
    return F.cross_entropy(logits, labels, weight=weights)


@torch.compile
def compute_loss(model, x, y):
    return balanced_ce(model(x), y)


def make_dataset(n=200):
    probs = torch.tensor([0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    y = torch.multinomial(probs, n, replacement=True)
    x = torch.randn(n, 32) + 0.5 * F.one_hot(y, 32).float()
    return x, y


def main():
    x_all, y_all = make_dataset()
    model = IntentMLP()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for epoch in range(3):
        total = 0.0
        for i in range(0, len(x_all), 64):  # last batch has 8 rows
            xb, yb = x_all[i:i + 64], y_all[i:i + 64]
            loss = compute_loss(model, xb, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total:.4f}")
    with torch.no_grad():
        acc = (model(x_all).argmax(-1) == y_all).float().mean().item()
    print(f"train accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
