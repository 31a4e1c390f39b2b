"""Beam search over a tiny GRU language model; beams are kept as Python lists of token ids."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM, BEAMS = 60, 48, 4


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.cell = nn.GRUCell(DIM, DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, last_tokens, hidden):
        ids = torch.tensor(last_tokens)
        hidden = self.cell(self.emb(ids), hidden)
        return torch.log_softmax(self.head(hidden), dim=-1), hidden


model = TinyLM().eval()
step = torch.compile(model)
beams = [([1], 0.0)]
hidden = torch.zeros(1, DIM)
with torch.no_grad():
    for t in range(12):
        logp, hidden = step([seq[-1] for seq, _ in beams], hidden)
        scores = torch.tensor([s for _, s in beams])[:, None] + logp
        top = scores.flatten().topk(BEAMS)
        rows = (top.indices // VOCAB).tolist()
        cols = (top.indices % VOCAB).tolist()
        beams = [(beams[r][0] + [c], float(v)) for r, c, v in zip(rows, cols, top.values)]
        hidden = hidden[rows]
for seq, score in beams:
    print(f"{score:8.3f}  {seq}")
