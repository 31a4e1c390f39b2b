"""Tiny attention classifier whose softmax temperature comes from a ContextVar.

Pattern from libraries that keep "current inference settings" in a
contextvars.ContextVar (see pytorch/pytorch#186449, jobovy/galpy#1358): the
attention layer reads the variable inside forward, which torch.compile traces.
"""
import contextlib
import contextvars

import torch
import torch.nn as nn
import torch.nn.functional as F

_ATTN_TEMPERATURE = contextvars.ContextVar("attn_temperature", default=1.0)


@contextlib.contextmanager
def attention_temperature(t):
    token = _ATTN_TEMPERATURE.set(t)
    try:
        yield
    finally:
        _ATTN_TEMPERATURE.reset(token)


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        temp = _ATTN_TEMPERATURE.get()
        att = (q @ k.transpose(-2, -1)) * self.scale / temp
        return self.out(att.softmax(dim=-1) @ v)


class Classifier(nn.Module):
    def __init__(self, dim=32, n_cls=4):
        super().__init__()
        self.embed = nn.Linear(8, dim)
        self.attn = SelfAttention(dim)
        self.head = nn.Linear(dim, n_cls)

    def forward(self, x):
        h = self.embed(x)
        h = h + self.attn(h)
        return self.head(h.mean(dim=1))


def main():
    torch.manual_seed(0)
    model = Classifier()
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    xs = torch.randn(64, 6, 8)
    ys = (xs.sum(dim=(1, 2)) > 0).long() + 2 * (xs[:, 0, 0] > 0).long()
    for step in range(12):
        idx = torch.arange(step * 4, step * 4 + 16) % 64
        loss = F.cross_entropy(cmodel(xs[idx]), ys[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 4 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    with torch.no_grad(), attention_temperature(0.5):
        acc = (cmodel(xs).argmax(-1) == ys).float().mean().item()
    print(f"sharpened eval acc {acc:.3f}")


if __name__ == "__main__":
    main()
