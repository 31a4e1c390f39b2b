"""Tiny ViT with timm-style stochastic depth and LayerScale, compiled per block.

Regional compilation (compile each repeated block instead of the whole model)
is the recipe PyTorch recommends to cut compile time for deep transformers.
Drop-path rates follow the usual linear "stochastic depth decay rule".
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class DropPath(nn.Module):
    """timm.layers.DropPath (drop_path with scale_by_keep=True)."""

    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:
            return x
        keep_prob = torch.tensor(1 - self.drop_prob)
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
        return x * random_tensor.div_(keep_prob)


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x * self.gamma


class Block(nn.Module):
    def __init__(self, dim, heads, drop_path):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ls1 = LayerScale(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.ls2 = LayerScale(dim)
        self.drop_path = DropPath(drop_path)

    def attn(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        x = F.scaled_dot_product_attention(q, k, v)
        return self.proj(x.transpose(1, 2).reshape(B, N, C))

    def forward(self, x):
        x = x + self.drop_path(self.ls1(self.attn(self.norm1(x))))
        x = x + self.drop_path(self.ls2(self.mlp(self.norm2(x))))
        return x


class TinyViT(nn.Module):
    def __init__(self, depth=12, dim=32, heads=2, drop_path_rate=0.1, num_classes=10):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, 8, 8)
        self.pos_embed = nn.Parameter(torch.zeros(1, 16, dim))
        dpr = [x.item() for x in torch.linspace(0, drop_path_rate, depth)]  # stochastic depth decay rule
        self.blocks = nn.Sequential(*[Block(dim, heads, dpr[i]) for i in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2) + self.pos_embed
        x = self.blocks(x)
        return self.head(self.norm(x).mean(1))


model = TinyViT()
for blk in model.blocks:  # regional compilation
    blk.compile()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
images = torch.randn(3, 8, 3, 32, 32)
labels = torch.randint(0, 10, (3, 8))
for step in range(2):
    loss = F.cross_entropy(model(images[step]), labels[step])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    print("eval pred", model(images[2]).argmax(1).tolist())
