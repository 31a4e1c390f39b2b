"""Sequence packing for LM pre-training: several documents share one row.

The collate function concatenates tokenized documents into fixed 64-token
rows and emits a per-token document id. Inside the compiled model, position
ids restart at every document boundary and attention is confined to a
document (block-diagonal mask), as in packed/varlen training recipes.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, ROW = 128, 32, 64


def packed_position_ids(doc_ids):
    # doc_ids: (T,) non-decreasing; positions restart at each new document
    _, counts = torch.unique_consecutive(doc_ids, return_counts=True)
    starts = torch.cumsum(counts, 0) - counts
    return torch.arange(doc_ids.numel()) - torch.repeat_interleave(starts, counts, output_size=doc_ids.numel())


class PackedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(ROW, D)
        self.layer = nn.TransformerEncoderLayer(D, 4, 64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids, doc_ids):
        pos = torch.stack([packed_position_ids(d) for d in doc_ids])
        same_doc = doc_ids[:, :, None] == doc_ids[:, None, :]
        causal = torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool).tril()
        mask = ~(same_doc & causal)                     # True = not allowed
        h = self.tok(ids) + self.pos(pos)
        h = self.layer(h, src_mask=mask.repeat_interleave(4, 0))
        return self.head(h)


def pack(docs, rows=4):
    ids = torch.zeros(rows, ROW, dtype=torch.long)
    doc_ids = torch.zeros(rows, ROW, dtype=torch.long)
    stream = torch.cat(docs)
    owner = torch.cat([torch.full((len(d),), k) for k, d in enumerate(docs)])
    ids.view(-1)[:stream.numel()] = stream[:rows * ROW]
    doc_ids.view(-1)[:owner.numel()] = owner[:rows * ROW]
    doc_ids.view(-1)[owner.numel():] = len(docs)   # trailing pad is one more "document"
    return ids, doc_ids


def main():
    model = PackedLM()
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(1)
    for step in range(4):
        lens = torch.randint(8, 40, (12,), generator=g).tolist()
        docs = [torch.randint(1, VOCAB, (n,), generator=g) for n in lens]
        ids, doc_ids = pack(docs)
        logits = cmodel(ids, doc_ids)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} docs/row {(doc_ids.diff(dim=1) != 0).sum().item() / 4 + 1:.2f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
