"""Long-context decoding with log-n attention scaling (queries scaled by log(context)/log(train_len)
once the context is longer than the training length), KV cache grown with torch.cat."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, HEADS, TRAIN_LEN = 128, 64, 4, 8


class LogNAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.out = nn.Linear(DIM, DIM)

    def forward(self, x, past_k, past_v):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
        context = k.shape[2]
        q = q * (torch.log(torch.tensor(float(context))) / math.log(TRAIN_LEN)).clamp(min=1.0)
        att = F.scaled_dot_product_attention(q, k, v, is_causal=T > 1)
        return self.out(att.transpose(1, 2).reshape(B, T, DIM)), k, v


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.attn = LogNAttention()
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids, past_k, past_v):
        h, past_k, past_v = self.attn(self.emb(ids), past_k, past_v)
        return self.head(h), past_k, past_v


model = TinyLM().eval()
compiled = torch.compile(model)
prompt = torch.randint(0, VOCAB, (2, 6))
k = v = torch.zeros(2, HEADS, 0, DIM // HEADS)
with torch.no_grad():
    logits, k, v = compiled(prompt, k, v)
    generated = []
    for _ in range(20):
        nxt = logits[:, -1:].argmax(-1)
        generated.append(nxt)
        logits, k, v = compiled(nxt, k, v)
print("context:", k.shape[2])
print("tokens:", torch.cat(generated, 1).tolist())
