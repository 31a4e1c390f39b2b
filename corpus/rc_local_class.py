# After pytorch/pytorch#167504: a class defined inside a factory function, one per trial of a
# sweep. Each call of make_scorer() runs the `class` statement again, so every scorer is of a
# new class, and the compiled forward recompiles on type(self) for each.
import torch
import torch.nn as nn


def make_scorer(width):
    class Scorer(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, width)

        def forward(self, x):
            return self.proj(x).relu().sum(-1)

    return Scorer()


torch.manual_seed(0)
x = torch.randn(4, 8)
for trial in range(3):
    scorer = torch.compile(make_scorer(16))
    print(trial, scorer(x).shape)
