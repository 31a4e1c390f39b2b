# Sentence classifier over variable-length batches padded to the batch max with
# pad_sequence; the time dimension is marked dynamic up front (min=2, max=16) so one graph serves
# every batch length, and the masked mean pool ignores the padding.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)


class MeanPoolClassifier(nn.Module):
    def __init__(self, vocab=100, d=16, n_cls=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.ff = nn.Sequential(nn.Linear(d, d), nn.GELU())
        self.out = nn.Linear(d, n_cls)

    def forward(self, tokens):
        mask = (tokens != 0).unsqueeze(-1).float()
        h = self.ff(self.emb(tokens)) * mask
        pooled = h.sum(1) / mask.sum(1).clamp(min=1.0)
        return self.out(pooled)


model = MeanPoolClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
cmodel = torch.compile(model)

for step in range(8):
    lengths = torch.randint(2, 15, (4,))
    seqs = [torch.randint(1, 100, (int(n),)) for n in lengths]
    tokens = pad_sequence(seqs, batch_first=True, padding_value=0)
    torch._dynamo.mark_dynamic(tokens, 1, min=2, max=16)
    y = torch.randint(0, 3, (4,))
    loss = nn.functional.cross_entropy(cmodel(tokens), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: T={tokens.shape[1]} loss {loss.item():.4f}")
