"""Image-ish classifier trainer: augmentation parameters come from a numpy Generator and a
random.Random instance in eager code (passed in as tensors), the compiled step logs its loss
through a small helper, log_loss(), that calls print() (print is made reorderable so Dynamo
does not break the graph there), and a per-class hit counter tensor is updated in place.
Under torch.compile the print inside the helper never runs: the step-loss lines that
`python` prints in eager are silently missing."""
import random

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
torch._dynamo.config.reorderable_logging_functions.add(print)

N_CLASSES = 4


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.head = nn.Linear(8, N_CLASSES)

    def forward(self, x):
        h = torch.relu(self.conv(x)).mean(dim=(2, 3))
        return self.head(h)


def log_loss(loss):
    print("  step loss", loss.detach())


@torch.compile
def train_step(model, x, y, gain, shift, hits):
    x = x * gain.view(-1, 1, 1, 1) + shift.view(-1, 1, 1, 1)
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    correct = (logits.argmax(-1) == y).long()
    hits.index_add_(0, y, correct)
    log_loss(loss)
    return loss


def main():
    np_rng = np.random.default_rng(3)
    py_rng = random.Random(5)
    X = torch.randn(96, 1, 8, 8)
    Y = torch.arange(96) % N_CLASSES
    X = X + Y.view(-1, 1, 1, 1).float() * 0.3
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    hits = torch.zeros(N_CLASSES, dtype=torch.long)
    order = list(range(96))
    for epoch in range(2):
        py_rng.shuffle(order)
        for i in range(0, 96, 32):
            idx = torch.tensor(order[i:i + 32])
            gain = torch.from_numpy(np_rng.uniform(0.8, 1.2, size=32).astype(np.float32))
            shift = torch.from_numpy(np_rng.normal(0.0, 0.1, size=32).astype(np.float32))
            loss = train_step(model, X[idx], Y[idx], gain, shift, hits)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.5f} hits {hits.tolist()}")
    print("next numpy draw", round(float(np_rng.uniform()), 8), "next random draw", round(py_rng.random(), 8))


if __name__ == "__main__":
    main()
