"""Tiny regression trainer whose compiled loss function keeps a per-step log.

The log helper is a small class defined inside the factory that builds the
loss function; each call creates a recorder and notes the batch it saw in the
`history` list captured from the factory.  Source: pytorch/pytorch#197896
(mutations of a closure-captured list are dropped when they happen in a
method of a locally defined class instantiated inside the compiled function).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_loss_fn(model):
    history = []

    class StepRecorder:
        def __init__(self, tag):
            self.tag = tag

        def note(self, batch):
            history.append((self.tag, batch.shape[0]))

    def loss_fn(x, y):
        rec = StepRecorder("train")
        rec.note(x)
        pred = model(x)
        return nn.functional.mse_loss(pred, y)

    return loss_fn, history


def main():
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn, history = make_loss_fn(model)
    compiled_loss = torch.compile(loss_fn)

    w_true = torch.randn(8, 1)
    losses = []
    for step in range(6):
        x = torch.randn(32, 8)
        y = x @ w_true + 0.01 * torch.randn(32, 1)
        loss = compiled_loss(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())

    print(f"first loss {losses[0]:.4f} last loss {losses[-1]:.4f}")
    print(f"steps run: {len(losses)}")
    print(f"steps recorded in history: {len(history)}")
    print(f"samples seen per history: {sum(n for _, n in history)}")


if __name__ == "__main__":
    main()
