"""Gradient accumulation: the compiled step receives the micro-batches as an
iterator, `zip(xs, ys)`, and loops over it. Source: pytorch/pytorch#146347 /
#146348 (Dynamo cannot iterate a zip/enumerate/generator object passed in as
an argument; the whole frame is skipped and runs eagerly)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


def accum_loss(model, micro_batches, n_micro):
    total = 0.0
    for xb, yb in micro_batches:
        total = total + F.mse_loss(model(xb), yb) / n_micro
    return total


def main():
    torch.manual_seed(0)
    model = Regressor()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    step_loss = torch.compile(accum_loss)
    w_true = torch.randn(8, 1)
    n_micro = 4
    for step in range(5):
        xs = [torch.randn(16, 8) for _ in range(n_micro)]
        ys = [x @ w_true + 0.01 * torch.randn(16, 1) for x in xs]
        opt.zero_grad()
        loss = step_loss(model, zip(xs, ys), n_micro)
        loss.backward()
        opt.step()
        print(f"step {step}: loss={loss.item():.5f}")


if __name__ == "__main__":
    main()
