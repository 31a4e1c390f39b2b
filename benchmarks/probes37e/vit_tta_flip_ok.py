# A tiny ViT written by hand (conv patch embedding, cls token, pre-norm attention blocks),
# evaluated with test-time augmentation (identity + horizontal flip), compiled forward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        B, N, D = x.shape
        q, k, v = self.qkv(self.n1(x)).view(B, N, 3, self.h, D // self.h).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, N, D)
        x = x + self.proj(a)
        return x + self.mlp(self.n2(x))


class ViT(nn.Module):
    def __init__(self, d=32, patch=4, img=16, n_cls=10):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, (img // patch) ** 2 + 1, d) * 0.02)
        self.blocks = nn.Sequential(Block(d, 4), Block(d, 4))
        self.head = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, n_cls))

    def forward(self, x):
        t = self.patch(x).flatten(2).transpose(1, 2)
        t = torch.cat([self.cls.expand(t.shape[0], -1, -1), t], 1) + self.pos
        return self.head(self.blocks(t)[:, 0])


def tta_predict(model, x):
    logits = model(x) + model(torch.flip(x, dims=[3]))
    return (logits / 2).softmax(-1)


model = ViT().eval()
cmodel = torch.compile(model)
with torch.no_grad():
    for step in range(3):
        x = torch.randn(4, 3, 16, 16)
        p = tta_predict(cmodel, x)
        print(step, p.argmax(-1).tolist(), [round(v, 4) for v in p.max(-1).values.tolist()])
