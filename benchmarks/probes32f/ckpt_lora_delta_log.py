# LoRA fine-tuning of a small encoder with activation checkpointing per block;
# each adapter keeps the norm of its update for a training dashboard.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class LoRALinear(nn.Module):
    def __init__(self, dim, rank=4, alpha=8.0):
        super().__init__()
        self.base = nn.Linear(dim, dim).requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(rank, dim) * 0.02)
        self.lora_B = nn.Parameter(torch.zeros(dim, rank))
        self.scale = alpha / rank
        self.delta_norms = []

    def forward(self, x):
        delta = (x @ self.lora_A.t()) @ self.lora_B.t() * self.scale
        self.delta_norms.append(delta.detach().norm())
        return self.base(x) + delta


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = LoRALinear(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)).requires_grad_(False)

    def forward(self, x):
        x = x + self.proj(self.norm(x))
        return x + self.mlp(x)


class Encoder(nn.Module):
    def __init__(self, dim=64, depth=4):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.head = nn.Linear(dim, 3)

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return self.head(x.mean(1))


model = Encoder()
compiled = torch.compile(model)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
for step in range(8):
    x = torch.randn(16, 32, 64)
    y = torch.randint(0, 3, (16,))
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    norms = [float(b.proj.delta_norms[-1]) for b in model.blocks]
    print(f"step {step}: loss {loss.item():.4f}  adapter update norms {[round(n, 4) for n in norms]}")
