"""Intent classifier over padded utterances; the collate function hands the true lengths
over as a Python list, used for a length mask and a masked mean pool."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM, INTENTS = 400, 32, 7


class MeanPoolIntent(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.proj = nn.Linear(DIM, DIM)
        self.cls = nn.Linear(DIM, INTENTS)

    def forward(self, tokens, lengths):
        lens = torch.tensor(lengths)
        mask = torch.arange(tokens.size(1))[None] < lens[:, None]
        h = torch.relu(self.proj(self.emb(tokens))) * mask[..., None]
        return self.cls(h.sum(1) / lens[:, None])


def collate(n):
    lengths = torch.randint(3, 15, (n,)).tolist()
    tokens = torch.zeros(n, max(lengths), dtype=torch.long)
    for i, length in enumerate(lengths):
        tokens[i, :length] = torch.randint(1, VOCAB, (length,))
    return tokens, lengths, torch.randint(0, INTENTS, (n,))


model = MeanPoolIntent()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
compiled = torch.compile(model)
for step in range(10):
    tokens, lengths, labels = collate(8)
    loss = nn.functional.cross_entropy(compiled(tokens, lengths), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} longest {tokens.size(1):2d} loss {loss.item():.4f}")
