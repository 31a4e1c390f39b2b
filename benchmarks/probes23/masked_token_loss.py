"""A token-tagging training loop whose loss averages only the non-padding positions by
boolean-mask indexing (per_tok[valid]): a data-dependent output size, after
pytorch/pytorch#114220 ("boolean masking creates a graph break due to aten.nonzero")."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, TAGS, PAD = 50, 5, -100


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32)
        self.mix = nn.Linear(32, 32)
        self.head = nn.Linear(32, TAGS)

    def forward(self, tokens):
        h = torch.tanh(self.mix(self.emb(tokens)))
        return self.head(h)


def masked_token_loss(logits, tags):
    per_tok = F.cross_entropy(logits.flatten(0, 1), tags.flatten().clamp(min=0), reduction="none")
    valid = tags.flatten() != PAD
    return per_tok[valid].mean()


def forward_loss(model, tokens, tags):
    logits = model(tokens)
    return masked_token_loss(logits, tags)


def batches(n):
    for _ in range(n):
        tokens = torch.randint(0, VOCAB, (8, 12))
        tags = torch.randint(0, TAGS, (8, 12))
        lengths = torch.randint(4, 13, (8,))
        pad = torch.arange(12)[None, :] >= lengths[:, None]
        tags[pad] = PAD
        yield tokens, tags


model = Tagger()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
compute_loss = torch.compile(forward_loss)
for i, (tokens, tags) in enumerate(batches(4)):
    loss = compute_loss(model, tokens, tags)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {i} loss {loss.item():.4f}")
