"""Tiny GPT with rotary embeddings; the cos/sin table is built lazily and grown as the text grows."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, HEADS = 96, 64, 4


class Rotary(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.seq_len_cached = 0

    def forward(self, x, offset):
        seq_len = offset + x.shape[2]
        if seq_len > self.seq_len_cached:
            self.seq_len_cached = seq_len
            t = torch.arange(seq_len).float()
            freqs = torch.outer(t, self.inv_freq)
            self.cos, self.sin = freqs.cos(), freqs.sin()
        cos, sin = self.cos[offset:seq_len], self.sin[offset:seq_len]
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.rotary = Rotary(DIM // HEADS)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids, past_k, past_v):
        B, T = ids.shape
        q, k, v = self.qkv(self.emb(ids)).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        offset = past_k.shape[2]
        q, k = self.rotary(q, offset), self.rotary(k, offset)
        k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
        att = F.scaled_dot_product_attention(q, k, v, is_causal=T > 1)
        return self.head(att.transpose(1, 2).reshape(B, T, DIM)), k, v


model = TinyGPT().eval()
forward = torch.compile(model)
prompt = torch.randint(0, VOCAB, (1, 8))
k = v = torch.zeros(1, HEADS, 0, DIM // HEADS)
with torch.no_grad():
    logits, k, v = forward(prompt, k, v)
    out = []
    for _ in range(16):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        out.append(nxt.item())
        logits, k, v = forward(nxt, k, v)
print("generated:", out)
