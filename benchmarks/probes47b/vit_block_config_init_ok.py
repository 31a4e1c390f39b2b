"""Cousin of vit_block_nested_config.py, written the right way: the attention block reads
the nested config flag (`attn_config.attention.allow_reduced_precision_compute`) once, when
it is built, and forward only reads the plain attribute it stored. Same model, same inputs,
one graph per compile, no graph break.

Source: the workaround for pytorch/pytorch#146798 (hoist the SubConfigProxy read out of the
compiled region)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

import attn_config

torch.manual_seed(0)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.reduced_precision = attn_config.attention.allow_reduced_precision_compute

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        if not self.reduced_precision:
            q, k = q.float(), k.float()
        out = F.scaled_dot_product_attention(q, k, v.to(q.dtype))
        return self.proj(out.transpose(1, 2).reshape(b, n, d).to(x.dtype))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    def __init__(self, dim=64, heads=4, depth=2, classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, kernel_size=8, stride=8)
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.head = nn.Linear(dim, classes)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)
        x = self.blocks(x)
        return self.head(x.mean(1))


model = torch.compile(TinyViT().eval())
images = torch.randn(4, 3, 32, 32)
with torch.no_grad():
    for step in range(3):
        logits = model(images)
print("predictions:", logits.argmax(-1).tolist())
