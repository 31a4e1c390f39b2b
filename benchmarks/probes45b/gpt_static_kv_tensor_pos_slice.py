"""Greedy generate() loop for a small decoder-only LM with a static KV cache.

The decode step is compiled once; to avoid recompiling on every position the
current position is passed as a 0-dim tensor, written into a preallocated cache
and the attention reads the filled prefix of the cache.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, H, LAYERS, MAXLEN = 128, 64, 4, 2, 48


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
        self.register_buffer("k_cache", torch.zeros(1, H, MAXLEN, D // H), persistent=False)
        self.register_buffer("v_cache", torch.zeros(1, H, MAXLEN, D // H), persistent=False)

    def forward(self, x, pos):                       # x: [1, 1, D], pos: 0-dim long tensor
        q, k, v = self.qkv(self.ln1(x)).view(1, 1, 3, H, D // H).unbind(2)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        self.k_cache.index_copy_(2, pos.view(1), k)
        self.v_cache.index_copy_(2, pos.view(1), v)
        keys, vals = self.k_cache[:, :, : pos + 1], self.v_cache[:, :, : pos + 1]
        att = F.scaled_dot_product_attention(q, keys, vals)
        x = x + self.proj(att.transpose(1, 2).reshape(1, 1, D))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(VOCAB, D), nn.Embedding(MAXLEN, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f, self.head = nn.LayerNorm(D), nn.Linear(D, VOCAB, bias=False)

    def forward(self, token, pos):                   # token: [1, 1]
        x = self.tok(token) + self.pos(pos).view(1, 1, D)
        for blk in self.blocks:
            x = blk(x, pos)
        return self.head(self.ln_f(x))[:, -1]


model = TinyLM().eval()
decode_step = torch.compile(model)


@torch.no_grad()
def generate(prompt, max_new):
    out, logits = list(prompt), None
    for i, t in enumerate(prompt):                   # prefill one token at a time
        logits = decode_step(torch.tensor([[t]]), torch.tensor(i))
    for i in range(len(prompt), len(prompt) + max_new):
        nxt = int(logits.argmax(-1))
        out.append(nxt)
        logits = decode_step(torch.tensor([[nxt]]), torch.tensor(i))
    return out


seq = generate([5, 17, 42, 8], max_new=20)
print("generated", seq[4:])
print("checksum", sum(seq))
