"""Tiny causal LM scored over length-bucketed batches (pad to a multiple of 8).

The attention block keeps a per-length cache of causal masks so the mask is
"built once per sequence length" -- a pattern copied from older GPT/LLaMA
code (mask / rotary caches keyed by seq_len).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D = 100, 32


class CausalSelfAttention(nn.Module):
    def __init__(self, d=D, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self._mask_cache = {}

    def causal_mask(self, seq_len):
        if seq_len not in self._mask_cache:
            self._mask_cache[seq_len] = torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
        return self._mask_cache[seq_len]

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, C // self.heads).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=self.causal_mask(T))
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.attn = CausalSelfAttention()
        self.ln = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        h = self.emb(ids)
        h = h + self.attn(h)
        return self.head(self.ln(h))


def collate(seqs, multiple=8):
    max_len = max(len(s) for s in seqs)
    padded = (max_len + multiple - 1) // multiple * multiple
    ids = torch.zeros(len(seqs), padded, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = s
    return ids


def main():
    model = TinyLM().eval()
    cmodel = torch.compile(model)
    g = torch.Generator().manual_seed(1)
    lengths = [5, 12, 19, 27, 33, 41, 50, 58, 63, 70]  # one bucket each: 8, 16, ..., 72
    with torch.no_grad():
        for step, L in enumerate(lengths):
            seqs = [torch.randint(1, VOCAB, (L - j,), generator=g) for j in range(3)]
            ids = collate(seqs)
            logits = cmodel(ids)
            nll = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
            print(f"step {step} T={ids.shape[1]} nll {nll.item():.4f}")


if __name__ == "__main__":
    main()
