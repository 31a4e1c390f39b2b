"""Variable-length text classifier (position-wise MLP): the collate_fn marks the length dynamic.

Second version of collate_mark_dynamic_workers.py (added after its first run showed that
its Conv1d's backward lowering specializes the length on its own): here nothing in the
model needs the length as a constant, so the lost mark is the only problem.

The model is compiled with dynamic=False so that only dimensions the user marks are
dynamic; the collate_fn pads each batch to its longest sequence and calls
torch._dynamo.mark_dynamic on the length dimension. Loading runs in two DataLoader
worker processes. Source: torch._dynamo.mark_dynamic as the torch.compile dynamic-shapes
docs describe it, placed by the user inside the usual pad-to-longest collate_fn of text
classification tutorials (torch.utils.data DataLoader with num_workers > 0).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
VOCAB, PAD = 200, 0


class ToyReviews(Dataset):
    def __init__(self, n=96):
        g = torch.Generator().manual_seed(0)
        lengths = torch.randint(6, 64, (n,), generator=g).tolist()
        self.docs = [torch.randint(1, VOCAB, (L,), generator=g) for L in lengths]
        self.labels = [int(d.float().mean() > VOCAB / 2) for d in self.docs]

    def __len__(self):
        return len(self.docs)

    def __getitem__(self, i):
        return self.docs[i], self.labels[i]


def pad_collate(batch):
    docs, labels = zip(*batch)
    longest = max(len(d) for d in docs)
    tokens = torch.full((len(docs), longest), PAD, dtype=torch.long)
    for row, d in enumerate(docs):
        tokens[row, : len(d)] = d
    torch._dynamo.mark_dynamic(tokens, 1)
    return tokens, torch.tensor(labels)


class MLPClassifier(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, dim, padding_idx=PAD)
        self.mix = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, 2)

    def forward(self, tokens):
        mask = (tokens != PAD).unsqueeze(-1).float()
        h = F.relu(self.mix(self.emb(tokens)))
        pooled = (h * mask).sum(1) / mask.sum(1).clamp_min(1.0)
        return self.out(pooled)


def main():
    model = MLPClassifier()
    cmodel = torch.compile(model, dynamic=False)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loader = DataLoader(ToyReviews(), batch_size=8, shuffle=False, collate_fn=pad_collate, num_workers=2)
    for epoch in range(2):
        total, correct = 0.0, 0
        for tokens, labels in loader:
            logits = cmodel(tokens)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            correct += (logits.argmax(-1) == labels).sum().item()
        print(f"epoch {epoch} loss {total / len(loader):.4f} acc {correct / 96:.3f}")


if __name__ == "__main__":
    main()
