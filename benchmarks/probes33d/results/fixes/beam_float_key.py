"""Beam search over a tiny GRU-cell language model; each step's candidates are ranked and
the best k kept as the next beams."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM, BEAM, EOS = 40, 32, 3, 0


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.cell = nn.GRUCell(DIM, DIM)
        self.head = nn.Linear(DIM, VOCAB)


lm = TinyLM().eval()


@torch.compile
def beam_step(tokens, hidden, scores):
    hidden = lm.cell(lm.emb(tokens), hidden)
    logp = lm.head(hidden).log_softmax(-1)
    candidates = []
    for b in range(tokens.size(0)):
        top_lp, top_ix = logp[b].topk(BEAM)
        for lp, ix in zip(top_lp, top_ix):
            candidates.append((scores[b] + lp, b, ix))
    best = sorted(candidates, key=lambda c: float(c[0]), reverse=True)[:BEAM]
    new_scores = torch.stack([c[0] for c in best])
    parents = torch.tensor([c[1] for c in best])
    next_tokens = torch.stack([c[2] for c in best])
    return next_tokens, hidden[parents], new_scores, parents


with torch.no_grad():
    tokens = torch.full((BEAM,), 1)
    hidden = torch.zeros(BEAM, DIM)
    scores = torch.tensor([0.0] + [-1e9] * (BEAM - 1))
    history = [[] for _ in range(BEAM)]
    for t in range(8):
        tokens, hidden, scores, parents = beam_step(tokens, hidden, scores)
        history = [history[p] + [tok] for p, tok in zip(parents.tolist(), tokens.tolist())]
for seq, s in zip(history, scores.tolist()):
    print(f"{s:8.3f} {seq}")
