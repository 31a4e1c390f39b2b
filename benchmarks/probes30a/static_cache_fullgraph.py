"""Greedy decoding with a preallocated KV cache and a decode step compiled with fullgraph=True,
as recommended for static-cache generation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, HEADS, MAX_LEN = 90, 64, 4, 48


class StaticCacheGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.pos_emb = nn.Embedding(MAX_LEN, DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.head = nn.Linear(DIM, VOCAB)
        self.register_buffer("k_cache", torch.zeros(1, HEADS, MAX_LEN, DIM // HEADS))
        self.register_buffer("v_cache", torch.zeros(1, HEADS, MAX_LEN, DIM // HEADS))

    def forward(self, ids, cache_position):
        T = ids.shape[1]
        start = int(cache_position[0])
        h = self.emb(ids) + self.pos_emb(cache_position)
        q, k, v = self.qkv(h).view(1, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        self.k_cache[:, :, start:start + T] = k
        self.v_cache[:, :, start:start + T] = v
        keys, values = self.k_cache[:, :, :start + T], self.v_cache[:, :, :start + T]
        att = F.scaled_dot_product_attention(q, keys, values, is_causal=T > 1)
        return self.head(h + att.transpose(1, 2).reshape(1, T, DIM))


model = StaticCacheGPT().eval()
decode = torch.compile(model, fullgraph=True)
prompt = torch.randint(0, VOCAB, (1, 6))
with torch.no_grad():
    logits = decode(prompt, torch.arange(6))
    out = []
    for pos in range(6, 26):
        nxt = logits[:, -1:].argmax(-1)
        out.append(nxt.item())
        logits = decode(nxt, torch.tensor([pos]))
print("generated:", out)
