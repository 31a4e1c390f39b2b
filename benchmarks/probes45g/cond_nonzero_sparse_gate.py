"""Sparse-gate regularizer: torch.cond picks a nonzero-based statistic when any unit fires.

Source: pytorch/pytorch#156724 ("torch.cond fails with dynamic shape ops like nonzero
under torch.compile"): a branch with a data-dependent-shape op (nonzero) cannot be
captured, and cond raises UncapturedHigherOrderOpError instead of graph-breaking.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


def active_stat(h):
    idx = torch.nonzero(h > 0.5)[:, 1]
    return idx.float().mean().reshape(1)


def idle_stat(h):
    return h.mean().reshape(1)


class GatedMLP(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.fc1 = nn.Linear(d, 64)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        stat = torch.cond((h > 0.5).any(), active_stat, idle_stat, (h,))
        return self.fc2(h), stat


def main():
    model = GatedMLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    step_fn = torch.compile(model)
    for step in range(4):
        x = torch.randn(16, 32)
        target = torch.randn(16, 4)
        out, stat = step_fn(x)
        loss = nn.functional.mse_loss(out, target) + 1e-3 * stat.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.5f} stat {stat.item():.3f}")


if __name__ == "__main__":
    main()
