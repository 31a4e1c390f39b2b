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

    def forward(self, tok, pos):
        q, k, v = self.qkv(self.emb(tok)).chunk(3, dim=-1)       # (1, D) each
        self.k_cache[:, pos] = k
        self.v_cache[:, pos] = v
        keys, vals = self.k_cache[:, : pos + 1], self.v_cache[:, : pos + 1]
        att = torch.softmax(q.unsqueeze(1) @ keys.transpose(1, 2) / D**0.5, dim=-1)
        return self.out((att @ vals).squeeze(1))


model = CachedDecoder().eval()
step = torch.compile(model)
tok = torch.tensor([1])
generated = []
with torch.no_grad():
    for pos in range(12):
        logits = step(tok, pos)
        tok = logits.argmax(-1)
        generated.append(tok.item())
print("generated:", generated)
