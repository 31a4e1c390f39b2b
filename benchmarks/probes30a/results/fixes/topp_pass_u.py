"""Nucleus (top-p) sampling by inverse CDF: a compiled sampler draws a uniform number, then
searches the sorted cumulative probabilities of a tiny GRU language model."""
import random
import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)
VOCAB, DIM = 64, 48


class CharLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.rnn = nn.GRUCell(DIM, DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, tok, h):
        h = self.rnn(self.emb(tok), h)
        return self.head(h), h


@torch.compile
def sample_top_p(logits, u, top_p=0.9, temperature=0.8):
    probs = torch.softmax(logits / temperature, dim=-1)
    sorted_probs, order = probs.sort(dim=-1, descending=True)
    cdf = sorted_probs.cumsum(dim=-1)
    sorted_probs = sorted_probs.masked_fill(cdf - sorted_probs > top_p, 0.0)
    cdf = sorted_probs.cumsum(dim=-1) / sorted_probs.sum(dim=-1, keepdim=True)
    pick = torch.searchsorted(cdf, torch.full_like(cdf[:, :1], u)).clamp(max=VOCAB - 1)
    return order.gather(-1, pick).squeeze(-1)


model = CharLM().eval()
with torch.no_grad():
    tok, h = torch.tensor([1]), torch.zeros(1, DIM)
    text = []
    for _ in range(30):
        logits, h = model(tok, h)
        tok = sample_top_p(logits, random.random())
        text.append(int(tok))
print("sampled:", text)
