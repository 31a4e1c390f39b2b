"""Trainer whose compiled step also appends a CSV row to a metrics file handle owned by the
trainer (a common pattern: 'log inside the step so nothing is forgotten').  The file write
is a Python I/O method Dynamo cannot trace, so every step graph-breaks there."""
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)


class Trainer:
    def __init__(self, path):
        self.model = nn.Sequential(nn.Linear(12, 24), nn.Tanh(), nn.Linear(24, 1))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.csv = open(path, "w")
        self.csv.write("phase,batch_size\n")
        self.rows = 0

    @torch.compile
    def step(self, x, y):
        pred = self.model(x).squeeze(-1)
        loss = nn.functional.mse_loss(pred, y)
        self.csv.write("train,%d\n" % x.shape[0])
        self.rows += 1
        return loss

    def close(self):
        self.csv.close()


def main():
    X = torch.randn(256, 12)
    Y = X[:, :3].sum(-1) - 0.5 * X[:, 5]
    path = os.path.join(tempfile.mkdtemp(), "metrics.csv")
    tr = Trainer(path)
    for epoch in range(3):
        for i in range(0, 256, 32):
            loss = tr.step(X[i:i + 32], Y[i:i + 32])
            tr.opt.zero_grad()
            loss.backward()
            tr.opt.step()
        print(f"epoch {epoch} loss {loss.item():.6f}")
    tr.close()
    with open(path) as f:
        lines = f.read().splitlines()
    print("csv rows", len(lines) - 1, "counter", tr.rows, "last", lines[-1])


if __name__ == "__main__":
    main()
