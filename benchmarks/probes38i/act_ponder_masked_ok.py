# Adaptive Computation Time (Graves 2016) with a fixed maximum number of ponder steps:
# halting is tracked per example with masks and torch.where (no Python branching on
# tensors), and the ponder cost is added to the loss. Compiled vs eager.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, MAX_STEPS, EPS = 12, 6, 0.01


class ACTCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(D, D)
        self.halt = nn.Linear(D, 1)
        self.head = nn.Linear(D, 3)

    def forward(self, x):
        h = torch.zeros_like(x)
        cum = torch.zeros(x.shape[0])
        remainder = torch.ones(x.shape[0])
        out = torch.zeros_like(x)
        n_steps = torch.zeros(x.shape[0])
        for step in range(MAX_STEPS):
            h = self.cell(x, h)
            p = torch.sigmoid(self.halt(h)).squeeze(-1)
            running = cum < 1 - EPS
            last = (cum + p >= 1 - EPS) | (step == MAX_STEPS - 1)
            w = torch.where(running & last, remainder, torch.where(running, p, torch.zeros_like(p)))
            out = out + w[:, None] * h
            n_steps = n_steps + running.float()
            remainder = torch.where(running & ~last, remainder - p, remainder)
            cum = torch.where(running, cum + p, cum)
        ponder = (n_steps + remainder).mean()
        return self.head(out), ponder, n_steps


model = ACTCell()
compiled = torch.compile(model)
x, y = torch.randn(16, D), torch.randint(0, 3, (16,))
with torch.no_grad():
    le, pe, ne = model(x)
    lc, pc, nc = compiled(x)
print("steps per example:", ne.int().tolist())
print("same steps:", torch.equal(ne, nc), "logits max diff < 1e-5:", (le - lc).abs().max().item() < 1e-5)
print(f"loss {F.cross_entropy(lc, y).item():.4f} ponder {pc.item():.4f}")
