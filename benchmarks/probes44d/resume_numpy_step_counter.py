"""Resumed training whose global step comes back from an .npz as np.int64.

The run's bookkeeping (global step) is saved with np.savez and restored on
resume, so `trainer.step` is a NumPy scalar (np.int64).  The compiled loss
function increments it (`self.step += 1`).  Dynamo models NumPy scalars as 0-d
arrays, so the attribute it writes back is a 0-d numpy.ndarray instead of an
np.int64.  The loss values are right, but the loss history keyed by step then
raises "TypeError: unhashable type: 'numpy.ndarray'" (an np.int64 is hashable).
Source: pytorch PR #141493 / issue #141258 (NumPy scalars are modelled as 0-d
arrays under torch.compile); resume pattern from common training scripts.
"""
import io

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


def saved_state():
    buf = io.BytesIO()
    np.savez(buf, step=np.int64(1200), best=np.float64(0.31))
    buf.seek(0)
    return np.load(buf)


class Trainer:
    def __init__(self, model, state):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.step = state["step"][()]          # np.int64 restored from the archive

    @torch.compile
    def compute_loss(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.step += 1
        return loss


def main():
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
    trainer = Trainer(model, saved_state())
    print("resumed at step", int(trainer.step))
    history = {}
    for _ in range(5):
        x = torch.randn(32, 10)
        y = x[:, :3].argmax(1)
        trainer.opt.zero_grad()
        loss = trainer.compute_loss(x, y)
        loss.backward()
        trainer.opt.step()
        history[trainer.step] = loss.item()
        print(f"step {int(trainer.step)} loss {loss.item():.4f}")
    best = min(history, key=history.get)
    print(f"best step {int(best)} loss {history[best]:.4f}")


if __name__ == "__main__":
    main()
