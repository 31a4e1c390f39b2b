# Greedy decoding written with while_loop so the whole generation loop is one compiled graph:
# the body appends the next token to the sequence with torch.cat.
import torch
import torch.nn as nn
from torch._higher_order_ops import while_loop

torch.manual_seed(0)
VOCAB, D, MAX_NEW = 20, 16, 6


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        return self.head(self.emb(ids).mean(0))


lm = TinyLM().eval()


def generate(prompt):
    def cond_fn(i, seq):
        return i < MAX_NEW

    n0 = prompt.numel()
    buf = torch.cat([prompt, prompt.new_zeros(MAX_NEW)])
    pos = torch.arange(n0 + MAX_NEW)

    def body_fn(i, seq):
        valid = (pos < n0 + i).float().unsqueeze(-1)
        h = (lm.emb(seq) * valid).sum(0) / valid.sum()
        nxt = lm.head(h).argmax(-1)
        return i + 1, torch.where(pos == n0 + i, nxt, seq)

    return while_loop(cond_fn, body_fn, (torch.tensor(0), buf))


prompt = torch.tensor([3, 7, 1])
with torch.no_grad():
    _, eager_seq = generate(prompt)
    print("eager   :", eager_seq.tolist())
    _, comp_seq = torch.compile(generate)(prompt)
    print("compiled:", comp_seq.tolist())
