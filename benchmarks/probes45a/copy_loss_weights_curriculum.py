"""Multi-loss training step compiled as one function. The per-step loss weights
start from a shared defaults dict that is shallow-copied with copy.copy() and
then adjusted for the curriculum phase. CPython's copy module is still on
Dynamo's skip path on torch 2.13 (see the 2026 copy work in
pytorch/pytorch#177484 / #179611 and the test_copy port #196456).
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

DEFAULT_WEIGHTS = {"ce": 1.0, "l2": 1e-3, "entropy": 0.1}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


torch.manual_seed(0)
model = Net()


@torch.compile
def compute_loss(x, y, warmup):
    logits = model(x)
    weights = copy.copy(DEFAULT_WEIGHTS)
    if warmup:
        weights["entropy"] = 0.0
    probs = logits.softmax(-1)
    ent = -(probs * probs.clamp_min(1e-8).log()).sum(-1).mean()
    l2 = sum((p ** 2).sum() for p in model.parameters())
    return weights["ce"] * F.cross_entropy(logits, y) + weights["l2"] * l2 - weights["entropy"] * ent


def main():
    torch.manual_seed(0)
    x = torch.randn(128, 10)
    y = (x[:, :3].argmax(-1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(16):
        i = (step * 32) % 128
        loss = compute_loss(x[i:i + 32], y[i:i + 32], step < 4)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 4 == 3:
            print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
