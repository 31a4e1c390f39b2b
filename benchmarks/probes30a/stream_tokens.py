"""Token streaming for a chat UI: a compiled generator yields each new token of a tiny GPT as
soon as it is decoded."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, HEADS = 100, 64, 4


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(256, DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.mlp = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        B, T = ids.shape
        h = self.emb(ids) + self.pos(torch.arange(T))
        q, k, v = self.qkv(h).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        h = h + F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, DIM)
        h = h + self.mlp(h)
        return self.head(h)


model = TinyGPT().eval()


@torch.compile
def stream(ids, max_new_tokens):
    for _ in range(max_new_tokens):
        next_id = model(ids)[:, -1].argmax(-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        yield next_id


with torch.no_grad():
    for prompt_len in (5, 9):
        prompt = torch.randint(0, VOCAB, (1, prompt_len))
        pieces = [int(tok) for tok in stream(prompt, 24)]
        print(f"prompt of {prompt_len}: {pieces}")
