"""Tiny GPT decoder with a preallocated KV cache, written in place at each step's positions."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, HEADS, MAX_LEN = 90, 64, 4, 64


class StaticCacheGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.pos_emb = nn.Embedding(MAX_LEN, DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.head = nn.Linear(DIM, VOCAB)
        self.register_buffer("k_cache", torch.zeros(1, HEADS, MAX_LEN, DIM // HEADS))
        self.register_buffer("v_cache", torch.zeros(1, HEADS, MAX_LEN, DIM // HEADS))

    def forward(self, ids, positions):
        T = ids.shape[1]
        h = self.emb(ids) + self.pos_emb(positions)
        q, k, v = self.qkv(h).view(1, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        self.k_cache.index_copy_(2, positions, k)
        self.v_cache.index_copy_(2, positions, v)
        mask = torch.arange(MAX_LEN)[None, :] <= positions[:, None]
        att = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=mask)
        h = h + self.proj(att.transpose(1, 2).reshape(1, T, DIM))
        return self.head(h)


model = StaticCacheGPT().eval()
step = torch.compile(model)
with torch.no_grad():
    for request, prompt_len in enumerate([7, 11, 5]):
        model.k_cache.zero_()
        model.v_cache.zero_()
        prompt = torch.randint(0, VOCAB, (1, prompt_len))
        torch._dynamo.mark_dynamic(prompt, 1)
        logits = step(prompt, torch.arange(prompt_len))
        out = []
        for pos in range(prompt_len, prompt_len + 12):
            nxt = logits[:, -1:].argmax(-1)
            out.append(nxt.item())
            logits = step(nxt, torch.tensor([pos]))
        print(f"request {request}: {out}")
