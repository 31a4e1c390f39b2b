import random
import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)
VOCAB, DIM, MAX_TOKENS = 500, 32, 256


class MeanPoolClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.proj = nn.Linear(DIM, DIM)
        self.out = nn.Linear(DIM, 3)

    def forward(self, tokens, lengths):
        lengths = torch.tensor(lengths)
        mask = torch.arange(tokens.shape[1])[None, :] < lengths[:, None]
        h = torch.tanh(self.proj(self.embed(tokens)))
        pooled = (h * mask[..., None]).sum(1) / lengths[:, None]
        return self.out(pooled)


def token_budget_batches(sentences):
    sentences = sorted(sentences, key=len)
    batch = []
    for s in sentences:
        if batch and (len(batch) + 1) * len(s) > MAX_TOKENS:
            yield batch
            batch = []
        batch.append(s)
    yield batch


def pad(batch):
    width = max(len(s) for s in batch)
    tokens = torch.zeros(len(batch), width, dtype=torch.long)
    for i, s in enumerate(batch):
        tokens[i, :len(s)] = torch.tensor(s)
    return tokens, [len(s) for s in batch]


sentences = [[random.randrange(1, VOCAB) for _ in range(random.randint(4, 60))] for _ in range(160)]
model = torch.compile(MeanPoolClassifier())
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for i, batch in enumerate(token_budget_batches(sentences)):
    tokens, lengths = pad(batch)
    labels = torch.randint(0, 3, (len(batch),))
    loss = nn.functional.cross_entropy(model(tokens, lengths), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if i % 8 == 0:
        print(f"batch {i} shape {tuple(tokens.shape)} loss {loss.item():.4f}")
