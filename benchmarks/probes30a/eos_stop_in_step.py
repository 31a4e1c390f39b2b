"""Batched greedy decoding of a tiny GPT with a growing KV cache; the compiled step also reports
whether every sequence in the batch has produced the end-of-sequence token."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, HEADS, EOS = 80, 64, 4, 2


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(128, DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids, past_k, past_v):
        B, T = ids.shape
        start = past_k.shape[2]
        h = self.emb(ids) + self.pos(torch.arange(start, start + T))
        q, k, v = self.qkv(h).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
        att = F.scaled_dot_product_attention(q, k, v, is_causal=T > 1)
        h = h + self.proj(att.transpose(1, 2).reshape(B, T, DIM))
        return self.head(h), k, v


def decode_step(model, ids, past_k, past_v, finished):
    logits, past_k, past_v = model(ids, past_k, past_v)
    next_tok = logits[:, -1].argmax(-1)
    next_tok = torch.where(finished, torch.full_like(next_tok, EOS), next_tok)
    finished = finished | (next_tok == EOS)
    if finished.all():
        return next_tok, past_k, past_v, finished, True
    return next_tok, past_k, past_v, finished, False


model = TinyGPT().eval()
model.head.bias.data[EOS] = 0.8
step = torch.compile(decode_step)
prompts = torch.randint(3, VOCAB, (4, 6))
k = v = torch.zeros(4, HEADS, 0, DIM // HEADS)
finished = torch.zeros(4, dtype=torch.bool)
tokens, ids = [], prompts
with torch.no_grad():
    for _ in range(20):
        ids, k, v, finished, done = step(model, ids, k, v, finished)
        tokens.append(ids)
        ids = ids[:, None]
        if done:
            break
print("steps:", len(tokens))
print("tokens:", torch.stack(tokens, 1).tolist())
