"""Eager nn.MultiheadAttention takes its native fast path in eval under no_grad; compiled, the
module traces the other path. A batch row whose keys are all padding gets NaN from the fast
path's masked softmax and zeros from the compiled one, so the pooled features differ."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self, vocab=50, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.head = nn.Linear(dim, 3)

    def forward(self, tokens, padding):
        x = self.embed(tokens)
        ctx, _ = self.attn(x, x, x, key_padding_mask=padding, need_weights=False)  # <- diagnosis
        return self.head(ctx.mean(1))


model = Tagger().eval()
tokens = torch.randint(1, 50, (4, 12))
padding = torch.zeros(4, 12, dtype=torch.bool)
padding[1, 5:] = True
padding[3] = True  # an empty document: every key is padding
with torch.no_grad():
    logits = torch.compile(model, backend="eager")(tokens, padding)
print("scores of the empty document:", logits[3])
