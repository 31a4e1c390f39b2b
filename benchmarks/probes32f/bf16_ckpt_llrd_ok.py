# Partial fine-tuning of a small residual MLP: embeddings and the first blocks
# frozen by name pattern, layer-wise learning-rate decay for the rest, bf16
# autocast on CPU and activation checkpointing per block.
import re
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Net(nn.Module):
    def __init__(self, dim=64, depth=6, classes=5):
        super().__init__()
        self.embed = nn.Linear(16, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=False)
        return self.head(h)


model = Net()
frozen = re.compile(r"^(embed\.|blocks\.[0-2]\.)")
for name, p in model.named_parameters():
    if frozen.match(name):
        p.requires_grad_(False)
groups = [{"params": list(model.head.parameters()), "lr": 2e-3}]
for i in range(3, 6):
    groups.append({"params": list(model.blocks[i].parameters()), "lr": 2e-3 * 0.7 ** (6 - i)})
opt = torch.optim.AdamW(groups, weight_decay=0.01)

compiled = torch.compile(model)
x = torch.randn(128, 16)
y = (x[:, :5] - x[:, 5:10]).argmax(1)
for step in range(8):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = F.cross_entropy(compiled(x).float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.3f}")
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"trainable parameters: {trainable}")
