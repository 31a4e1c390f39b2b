import functools

import torch
import torch.nn as nn

torch.manual_seed(0)


@functools.lru_cache(maxsize=8)
def rope_tables(seq_len, dim):
    inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    ang = torch.outer(torch.arange(seq_len).float(), inv)
    return ang.cos(), ang.sin()


def apply_rope(x):
    cos, sin = rope_tables(x.shape[-2], x.shape[-1])
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


class TinyAttn(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k = apply_rope(q), apply_rope(k)
        att = torch.softmax(q @ k.transpose(-1, -2) / 8.0, dim=-1)
        return self.out(att @ v)


model = TinyAttn()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(4, 32, 64)
for step in range(5):
    loss = cmodel(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
