"""Encode variable-length sentences with a GRU over packed sequences, compiled for serving."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence

torch._dynamo.config.allow_rnn = True
torch.manual_seed(0)


class SentenceEncoder(nn.Module):
    def __init__(self, vocab=300, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.proj = nn.Linear(dim, 16)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        _, h_n = self.gru(packed)
        return nn.functional.normalize(self.proj(h_n[-1]), dim=-1)


encoder = SentenceEncoder().eval()
encode = torch.compile(encoder)

batches = []
for n in (4, 4, 4):
    lengths = torch.randint(3, 15, (n,))
    tokens = torch.zeros(n, int(lengths.max()), dtype=torch.long)
    for i, L in enumerate(lengths.tolist()):
        tokens[i, :L] = torch.randint(1, 300, (L,))
    batches.append((tokens, lengths))

with torch.no_grad():
    for i, (tokens, lengths) in enumerate(batches):
        emb = encode(tokens, lengths)
        print(f"batch {i}: {tuple(emb.shape)} first-row norm {emb[0].norm():.3f}")
