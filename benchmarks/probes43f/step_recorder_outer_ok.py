"""Cousin of step_recorder_local_class.py: the same log, but the recorder
is created once and called from the training loop, outside the compiled loss
function, so the Python list is appended by plain Python every step."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class StepRecorder:
    def __init__(self, tag):
        self.tag = tag
        self.history = []

    def note(self, batch):
        self.history.append((self.tag, batch.shape[0]))


def make_loss_fn(model):
    def loss_fn(x, y):
        pred = model(x)
        return nn.functional.mse_loss(pred, y)

    return loss_fn


def main():
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    rec = StepRecorder("train")
    compiled_loss = torch.compile(make_loss_fn(model))

    w_true = torch.randn(8, 1)
    losses = []
    for step in range(6):
        x = torch.randn(32, 8)
        y = x @ w_true + 0.01 * torch.randn(32, 1)
        rec.note(x)
        loss = compiled_loss(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())

    print(f"first loss {losses[0]:.4f} last loss {losses[-1]:.4f}")
    print(f"steps run: {len(losses)}")
    print(f"steps recorded in history: {len(rec.history)}")
    print(f"samples seen per history: {sum(n for _, n in rec.history)}")


if __name__ == "__main__":
    main()
