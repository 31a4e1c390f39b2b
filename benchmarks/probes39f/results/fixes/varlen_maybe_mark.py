# Sentence classifier with a hand-written GRU loop; batches bucketed by length, and the user
# marks the time dimension dynamic to avoid a recompile per bucket.
import torch
import torch.nn as nn

torch.manual_seed(0)


class GRUClassifier(nn.Module):
    def __init__(self, vocab=30, emb=8, hidden=16, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.cell = nn.GRUCell(emb, hidden)
        self.cls = nn.Linear(hidden, classes)

    def forward(self, tokens):
        x = self.emb(tokens)
        h = x.new_zeros(x.size(0), self.cell.hidden_size)
        for t in range(tokens.size(1)):
            h = self.cell(x[:, t], h)
        return self.cls(h)


model = GRUClassifier()
cmodel = torch.compile(model)
buckets = [5, 7, 9, 7]  # sequence lengths of the length-sorted buckets
for i, L in enumerate(buckets):
    tokens = torch.randint(0, 30, (4, L))
    torch._dynamo.maybe_mark_dynamic(tokens, 1)
    with torch.no_grad():
        logits = cmodel(tokens)
    print(i, L, logits.argmax(-1).tolist(), round(logits.sum().item(), 4))
