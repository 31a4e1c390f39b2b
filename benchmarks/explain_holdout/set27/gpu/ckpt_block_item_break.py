"""Activation checkpointing in a compiled CUDA training step, with a statistic logged inside.

Each transformer-style MLP block runs under torch.utils.checkpoint (use_reentrant=False) and
records the largest activation it saw, as a Python float, for a monitoring dashboard.
"""
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
device = "cuda"


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)
        self.max_act = 0.0

    def inner(self, x):
        h = torch.nn.functional.gelu(self.fc1(self.ln(x)))
        self.max_act = max(self.max_act, h.detach().abs().max().item())
        return x + self.fc2(h)

    def forward(self, x):
        return checkpoint(self.inner, x, use_reentrant=False)


model = torch.nn.Sequential(*[Block(256) for _ in range(4)]).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
cmodel = torch.compile(model)

for step in range(6):
    x = torch.randn(16, 128, 256, device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = cmodel(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print("step", step, round(loss.item(), 4), "max act", round(model[0].max_act, 3))
