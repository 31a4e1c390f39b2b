"""Imbalanced classification with a focal loss whose gamma is annealed.

The train step is compiled once and takes the loss function as an argument;
the loop builds it each epoch with functools.partial(focal_loss, gamma=...).
"""
import functools

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, D, C, BATCH, EPOCHS = 1024, 20, 5, 128, 10


def focal_loss(logits, target, gamma, alpha=0.25):
    ce = F.cross_entropy(logits, target, reduction="none")
    pt = torch.exp(-ce)
    return (alpha * (1 - pt) ** gamma * ce).mean()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, C))

    def forward(self, x):
        return self.net(x)


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


@torch.compile
def train_step(x, y, loss_fn):
    logits = model(x)
    loss = loss_fn(logits, y)
    loss.backward()
    return loss.detach()


def make_data():
    x = torch.randn(N, D)
    w = torch.randn(D, C)
    logits = x @ w + torch.tensor([3.0, 0.0, -1.0, -2.0, -3.0])
    return x, logits.argmax(-1)


def main():
    x, y = make_data()
    for epoch in range(EPOCHS):
        gamma = 0.5 + 0.25 * epoch  # ramp gamma up as the easy class is learned
        loss_fn = functools.partial(focal_loss, gamma=gamma)
        total = 0.0
        for i in range(0, N, BATCH):
            opt.zero_grad()
            total += train_step(x[i:i + BATCH], y[i:i + BATCH], loss_fn).item()
            opt.step()
        with torch.no_grad():
            acc = (model(x).argmax(-1) == y).float().mean().item()
        print(f"epoch {epoch} gamma {gamma:.2f} loss {total / (N // BATCH):.4f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
