"""Correct cousin of accum_step_zip_input.py: the micro-batches are passed as a
list of (x, y) pairs, which Dynamo iterates (unrolls) in one graph."""
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
        loss = step_loss(model, list(zip(xs, ys)), n_micro)
        loss.backward()
        opt.step()
        print(f"step {step}: loss={loss.item():.5f}")


if __name__ == "__main__":
    main()
