"""Multi-task tabular model with "hardest-task" training: each step keeps only the
two largest per-task losses (a simple worst-case / DRO-style objective).  The task
losses are a Python list of 0-d tensors, ranked with sorted().

Source: pytorch test/dynamo/test_error_messages.py::test_sort_with_nonconstant_keys
("sort with non-constant keys ... we cannot sort with Tensor or SymInt keys").
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
TASKS, D = 5, 16


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(64, 1) for _ in range(TASKS)])

    def forward(self, x):
        z = self.trunk(x)
        return [head(z).squeeze(-1) for head in self.heads]


model = MultiTaskNet()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)


@torch.compile
def train_loss(x, ys):
    preds = model(x)
    losses = [F.mse_loss(p, ys[:, t]) for t, p in enumerate(preds)]
    hardest = sorted(losses)[-2:]
    return sum(hardest) / 2


W = torch.randn(TASKS, D)
for step in range(30):
    x = torch.randn(64, D)
    ys = x @ W.t() * torch.arange(1, TASKS + 1).float() / TASKS
    loss = train_loss(x, ys)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"step {step + 1} worst-2 loss {loss.item():.4f}")
