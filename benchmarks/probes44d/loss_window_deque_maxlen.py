"""Loss-spike damping with a moving window of recent losses (deque(maxlen=K)).

The compiled loss function appends the detached loss to a bounded deque kept
on the trainer and divides by the window mean to damp spikes.  Under
torch.compile the trace of `append` on the full, pre-existing deque does not
evict the oldest entry, so `len(self.window)` and `sum(self.window)` are baked
in with K+1 items; the deque itself ends up with K items, but every damped
loss after the window fills is computed from the wrong baseline.
Source: dynamo DequeVariable maxlen faithfulness fixes (pytorch PRs #195010,
#195029, 2026); pattern from loss-spike guards in LM training loops.
"""
import collections

import torch
import torch.nn as nn

torch.manual_seed(0)


class Trainer:
    def __init__(self, model, window=4):
        self.model = model
        self.window = collections.deque(maxlen=window)
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05)

    @torch.compile
    def damped_loss(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.window.append(loss.detach())
        baseline = sum(self.window) / len(self.window)
        # damp a loss that is far above the recent average
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
            y = y * 5.0  # a corrupted batch: the guard should damp it
        loss, baseline = trainer.step(x, y)
        print(f"iter {it}: damped loss {loss:.4f} baseline {baseline:.4f} window {len(trainer.window)}")


if __name__ == "__main__":
    main()
