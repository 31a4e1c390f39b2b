import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
VOCAB, DIM, N_CLASSES = 300, 32, 4


class Reviews(Dataset):
    def __init__(self, n):
        self.texts = [torch.randint(1, VOCAB, (int(torch.randint(5, 40, ())),)) for _ in range(n)]
        self.labels = torch.randint(0, N_CLASSES, (n,))

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        return self.texts[i], self.labels[i]


def pad_collate(samples):
    lengths = torch.tensor([len(t) for t, _ in samples])
    tokens = torch.zeros(len(samples), int(lengths.max()), dtype=torch.long)
    for i, (t, _) in enumerate(samples):
        tokens[i, :len(t)] = t
    return {"tokens": tokens, "lengths": lengths, "labels": torch.stack([y for _, y in samples])}


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(DIM, 64), nn.ReLU(), nn.Linear(64, N_CLASSES))

    def forward(self, tokens, lengths):
        mask = torch.arange(tokens.shape[1])[None, :] < lengths[:, None]
        h = self.embed(tokens) * mask[..., None]
        return self.mlp(h.sum(1) / lengths[:, None])


model = BagClassifier()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
train = DataLoader(Reviews(200), batch_size=48, shuffle=True, collate_fn=pad_collate)
for epoch in range(3):
    for batch in train:
        loss = nn.functional.cross_entropy(cmodel(batch["tokens"], batch["lengths"]), batch["labels"])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} last batch {len(batch['labels'])} loss {loss.item():.4f}")

correct = 0
with torch.no_grad():
    for batch in DataLoader(Reviews(70), batch_size=32, collate_fn=pad_collate):
        correct += (cmodel(batch["tokens"], batch["lengths"]).argmax(-1) == batch["labels"]).sum().item()
print(f"eval accuracy {correct / 70:.3f}")
