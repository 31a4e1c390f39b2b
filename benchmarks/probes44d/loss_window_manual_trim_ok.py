"""Correct cousin of loss_window_deque_maxlen: the same loss-spike damping,
but the moving window is an unbounded deque trimmed by hand with popleft().
Dynamo replays append/popleft on the trainer's deque faithfully, so the
baselines and damped losses match eager exactly (a few recompiles while the
window fills, guarded on its length, are expected and harmless)."""
import collections

import torch
import torch.nn as nn

torch.manual_seed(0)


class Trainer:
    def __init__(self, model, window=4):
        self.model = model
        self.k = window
        self.window = collections.deque()
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05)

    @torch.compile
    def damped_loss(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.window.append(loss.detach())
        if len(self.window) > self.k:
            self.window.popleft()
        baseline = sum(self.window) / len(self.window)
        scale = torch.clamp(2.0 * baseline / loss.detach(), max=1.0)
        return loss * scale, baseline

    def step(self, x, y):
        loss, baseline = self.damped_loss(x, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item(), baseline.item()


def main():
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    trainer = Trainer(model, window=4)
    w_true = torch.randn(8, 1)
    for it in range(10):
        x = torch.randn(64, 8)
        y = x @ w_true + 0.1 * torch.randn(64, 1)
        if it == 7:
            y = y * 5.0
        loss, baseline = trainer.step(x, y)
        print(f"iter {it}: damped loss {loss:.4f} baseline {baseline:.4f} window {len(trainer.window)}")


if __name__ == "__main__":
    main()
