# Streaming decoder with sliding-window attention: the last WINDOW keys/values are kept in a
# collections.deque(maxlen=WINDOW), so the oldest entry drops out as each new token arrives.
# The per-token step is compiled; the same stream is decoded eagerly for comparison.
from collections import deque

import torch
import torch.nn as nn

torch.manual_seed(0)
D, WINDOW, VOCAB = 8, 4, 20


class WindowDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.k = nn.Linear(D, D)
        self.v = nn.Linear(D, D)
        self.q = nn.Linear(D, D)
        self.out = nn.Linear(D, VOCAB)

    def forward(self, tok, keys, vals):
        x = self.emb(tok)
        keys = torch.cat([keys[:, 1:], self.k(x).unsqueeze(1)], 1)
        vals = torch.cat([vals[:, 1:], self.v(x).unsqueeze(1)], 1)
        att = torch.softmax(self.q(x).unsqueeze(1) @ keys.transpose(1, 2), dim=-1)
        return self.out((att @ vals).squeeze(1)), keys, vals


def decode(step, n=10):
    k_win, v_win = torch.zeros(1, WINDOW, D), torch.zeros(1, WINDOW, D)
    tok, logits_sum, toks = torch.tensor([3]), 0.0, []
    for _ in range(n):
        logits, k_win, v_win = step(tok, k_win, v_win)
        logits_sum += logits.abs().sum().item()
        tok = logits.argmax(-1)
        toks.append(tok.item())
    return toks, logits_sum


model = WindowDecoder().eval()
with torch.no_grad():
    eager_toks, eager_sum = decode(model)
    comp_toks, comp_sum = decode(torch.compile(model))
print("eager   :", eager_toks, f"{eager_sum:.4f}")
print("compiled:", comp_toks, f"{comp_sum:.4f}")
