# Incremental decoding with a preallocated key/value cache kept on the module; the write
# position is a plain Python int on the module that advances after each token.
import torch
import torch.nn as nn

torch.manual_seed(0)
D, MAXLEN, VOCAB = 16, 16, 30


class CachedDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, VOCAB)
        self.register_buffer("k_cache", torch.zeros(1, MAXLEN, D))
        self.register_buffer("v_cache", torch.zeros(1, MAXLEN, D))
        self.register_buffer("pos_t", torch.zeros(1, dtype=torch.long))

    def forward(self, tok):
        q, k, v = self.qkv(self.emb(tok)).chunk(3, dim=-1)       # (1, D) each
        pos = self.pos_t.clone()
        self.k_cache.index_copy_(1, pos, k.unsqueeze(1))
        self.v_cache.index_copy_(1, pos, v.unsqueeze(1))
        self.pos_t += 1
        scores = q.unsqueeze(1) @ self.k_cache.transpose(1, 2) / D**0.5
        scores = scores.masked_fill(torch.arange(MAXLEN) > pos, float("-inf"))
        att = torch.softmax(scores, dim=-1)
        return self.out((att @ self.v_cache).squeeze(1))


model = CachedDecoder().eval()
step = torch.compile(model)
tok = torch.tensor([1])
generated = []
with torch.no_grad():
    for _ in range(12):
        logits = step(tok)
        tok = logits.argmax(-1)
        generated.append(tok.item())
print("generated:", generated)
