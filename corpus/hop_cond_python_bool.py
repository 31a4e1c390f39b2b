"""torch.cond given a Python bool: the predicate is read out of the data with `.item()`, so
torch.cond gets a constant instead of a tensor and cannot keep the branch dynamic.
After pytorch/pytorch#128709 ("[cond] inlining into one of the branches when pred is a python
constant")."""
import torch

torch.manual_seed(0)


def gate(x, w):
    def scaled(x, w):
        return x @ w * 2.0

    def plain(x, w):
        return x @ w

    take = x.mean().item() > 0  # <- diagnosis
    return torch.cond(take, scaled, plain, (x, w))


f = torch.compile(gate, backend="eager")
w = torch.randn(4, 4)
for step in range(3):
    x = torch.randn(2, 4) + (1.0 if step % 2 else -1.0)
    print(step, round(f(x, w).sum().item(), 4))
