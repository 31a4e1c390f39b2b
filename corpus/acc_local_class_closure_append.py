"""Accuracy (a lost Python side effect): the compiled step builds a small tracker, a class
defined inside the factory, whose method appends to the factory's list; compiled, the list
stays empty while every tensor is right (pytorch/pytorch#197896)."""
import torch

torch.manual_seed(0)


def make_step(w):
    seen = []

    class Tracker:
        def log(self, x):
            seen.append(x.shape[0])  # <- diagnosis

    def step(x):
        Tracker().log(x)
        return (x @ w).relu().sum()

    return step, seen


step, seen = make_step(torch.randn(4, 3))
compiled = torch.compile(step)
for n in (5, 5, 5):
    compiled(torch.randn(n, 4))
print("batches seen:", len(seen))
