"""A padded-batch text encoder: each batch is padded to its longest sequence and carries a
padding mask. The user marks the sequence dimension dynamic with the model's context size as
the maximum (mark_dynamic(..., min=2, max=64)); one batch holds a document longer than 64."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, vocab=100, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.ff = nn.Linear(d, d)

    def forward(self, tokens, mask):
        h = self.ff(self.emb(tokens)).relu()
        h = h * mask.unsqueeze(-1)
        return h.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)


def make_batch(lengths):
    T = max(lengths)
    tokens = torch.zeros(len(lengths), T, dtype=torch.long)
    mask = torch.zeros(len(lengths), T)
    for i, n in enumerate(lengths):
        tokens[i, :n] = torch.randint(1, 100, (n,))
        mask[i, :n] = 1
    return tokens, mask


model = torch.compile(Encoder())
for lengths in ([5, 9, 3], [12, 7, 20], [31, 4, 8], [80, 10, 6], [17, 2, 9]):
    tokens, mask = make_batch(lengths)
    torch._dynamo.mark_dynamic(tokens, 1, min=2, max=64)
    torch._dynamo.mark_dynamic(mask, 1, min=2, max=64)
    with torch.no_grad():
        out = model(tokens, mask)
    print(max(lengths), tuple(out.shape))
