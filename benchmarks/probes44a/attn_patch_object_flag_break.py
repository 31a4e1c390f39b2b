"""Cross-attention block that flips a library option with unittest.mock.patch.object
inside forward (pattern from ParaAttention, see pytorch/pytorch#146798)."""
import types
import unittest.mock

import torch
import torch.nn as nn
import torch.nn.functional as F

# a tiny "library config" module-level namespace, like para_attn.config
attn_options = types.SimpleNamespace(upcast_softmax=False)
model_config = types.SimpleNamespace(allow_reduced_precision=False)


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if attn_options.upcast_softmax:
        probs = F.softmax(scores.float(), dim=-1).to(q.dtype)
    else:
        probs = F.softmax(scores, dim=-1)
    return probs @ v


class CrossAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, ctx):
        b, n, d = x.shape
        q = self.q(x).view(b, n, self.heads, -1).transpose(1, 2)
        k, v = self.kv(ctx).view(b, ctx.shape[1], 2, self.heads, -1).permute(2, 0, 3, 1, 4)
        with unittest.mock.patch.object(attn_options, "upcast_softmax", not model_config.allow_reduced_precision):
            o = attend(q, k, v)
        return self.out(o.transpose(1, 2).reshape(b, n, d))


class Decoder(nn.Module):
    def __init__(self, dim=32, heads=4, depth=2, vocab=50):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([CrossAttention(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens, ctx):
        h = self.emb(tokens)
        for blk in self.blocks:
            h = h + blk(self.norm(h), ctx)
        return self.head(h)


def main():
    torch.manual_seed(0)
    model = Decoder()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = torch.compile(model)
    for it in range(4):
        tokens = torch.randint(0, 50, (4, 12))
        ctx = torch.randn(4, 7, 32)
        logits = step(tokens, ctx)
        loss = F.cross_entropy(logits.reshape(-1, 50), tokens.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {it} loss {loss.item():.4f}")
    print("upcast flag restored:", attn_options.upcast_softmax)


if __name__ == "__main__":
    main()
