"""Reversible residual network (RevNet / Reformer style) trained on one GPU with torch.compile.

Each coupling block keeps the CUDA RNG state it ran its dropout under, so that a memory-saving
backward can recompute the block's activations with the same dropout mask."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class Coupling(nn.Module):
    def __init__(self, dim, p=0.1):
        super().__init__()
        self.f = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(),
                               nn.Linear(2 * dim, dim))
        self.p = p

    def forward(self, x1, x2):
        self.rng_state = torch.cuda.get_rng_state()
        y1 = x1 + F.dropout(self.f(x2), self.p, self.training)
        return x2, y1


class RevNet(nn.Module):
    def __init__(self, dim=256, depth=4, classes=10):
        super().__init__()
        self.stem = nn.Linear(2 * dim, 2 * dim)
        self.blocks = nn.ModuleList(Coupling(dim) for _ in range(depth))
        self.head = nn.Linear(2 * dim, classes)

    def forward(self, x):
        x1, x2 = [t.contiguous() for t in self.stem(x).chunk(2, dim=-1)]
        for block in self.blocks:
            x1, x2 = block(x1, x2)
        return self.head(torch.cat([x1, x2], dim=-1))


model = RevNet().to(device)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

for step in range(20):
    x = torch.randn(64, 512, device=device)
    y = torch.randint(0, 10, (64,), device=device)
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("saved rng state bytes:", model.blocks[0].rng_state.numel())
