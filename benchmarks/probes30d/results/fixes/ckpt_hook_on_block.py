import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + checkpoint(self.mlp, self.norm(x), use_reentrant=False)


class Encoder(nn.Module):
    def __init__(self, dim=48, depth=4):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.head = nn.Linear(dim, 5)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.head(x.mean(dim=1))


model = Encoder()
features = {}
model.blocks[-1].register_forward_hook(lambda mod, inp, out: features.__setitem__("last_mlp", out))

compiled = torch.compile(model, fullgraph=True)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(4):
    x = torch.randn(16, 12, 48)
    y = torch.randint(0, 5, (16,))
    logits = compiled(x)
    aux = features["last_mlp"].pow(2).mean()
    loss = nn.functional.cross_entropy(logits, y) + 0.01 * aux
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} aux {aux.item():.4f}")
