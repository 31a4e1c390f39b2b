import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, CLASSES = 500, 4


class BagOfWords(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Parameter(torch.randn(VOCAB, 32) * 0.1)
        self.head = nn.Linear(32, CLASSES)

    def forward(self, doc_ids, tok_ids, num_docs):
        idx = torch.stack([doc_ids, tok_ids])
        counts = torch.sparse_coo_tensor(idx, torch.ones(tok_ids.shape[0]), (num_docs, VOCAB))
        doc_vec = torch.sparse.mm(counts, self.embed)
        return self.head(torch.tanh(doc_vec))


def make_batch(num_docs=16):
    lens = torch.randint(5, 30, (num_docs,))
    doc_ids = torch.repeat_interleave(torch.arange(num_docs), lens)
    tok_ids = torch.randint(0, VOCAB, (int(lens.sum()),))
    labels = torch.randint(0, CLASSES, (num_docs,))
    return doc_ids, tok_ids, labels


model = BagOfWords()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
step_fn = torch.compile(model)
for step in range(5):
    doc_ids, tok_ids, labels = make_batch()
    logits = step_fn(doc_ids, tok_ids, 16)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
