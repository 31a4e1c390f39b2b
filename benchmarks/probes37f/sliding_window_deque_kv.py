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

    def forward(self, tok, k_win, v_win):
        x = self.emb(tok)
        k_win.append(self.k(x))
        v_win.append(self.v(x))
        keys, vals = torch.stack(list(k_win), 1), torch.stack(list(v_win), 1)   # (1, W, D)
        att = torch.softmax(self.q(x).unsqueeze(1) @ keys.transpose(1, 2), dim=-1)
        return self.out((att @ vals).squeeze(1))


def decode(step, n=10):
    k_win = deque([torch.zeros(1, D) for _ in range(WINDOW)], maxlen=WINDOW)
    v_win = deque([torch.zeros(1, D) for _ in range(WINDOW)], maxlen=WINDOW)
    tok, logits_sum, toks = torch.tensor([3]), 0.0, []
    for _ in range(n):
        logits = step(tok, k_win, v_win)
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
