# An attention block whose config object derives the softmax scale once with
# functools.cached_property, and forward reads it on every call.
import functools
import math
import torch
import torch.nn as nn

torch.manual_seed(0)


class AttnConfig:
    def __init__(self, d_model, n_heads):
        self.d_model = d_model
        self.n_heads = n_heads
        self.scale = 1.0 / math.sqrt(d_model // n_heads)



class SelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.out = nn.Linear(cfg.d_model, cfg.d_model)

    def forward(self, x):
        b, t, d = x.shape
        h = self.cfg.n_heads
        q, k, v = self.qkv(x).view(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) * self.cfg.scale
        y = att.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, d))


model = SelfAttention(AttnConfig(32, 4))
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    x = torch.randn(2, 8, 32)
    loss = compiled(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
