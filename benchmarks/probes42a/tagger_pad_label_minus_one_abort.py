"""Conv1d part-of-speech tagger; the collate function pads label sequences with -1, while
F.cross_entropy ignores -100 by default.

The first batches are all full-length (no padding). Batch 3 has short sentences, so its
labels contain -1. Eager PyTorch raises `IndexError: Target -1 is out of bounds.` at the
loss line. The compiled train step runs the loss in an Inductor C++ kernel whose bounds
check throws inside an OpenMP parallel region: the process aborts (SIGABRT, exit 134) with
"index out of bounds: 0 <= tmp < 12" and no Python traceback.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, N_TAGS, MAX_LEN, BATCH = 500, 12, 128, 32
PAD_ID, PAD_TAG = 0, -1


def make_sentence(length):
    words = torch.randint(1, VOCAB, (length,))
    tags = words % N_TAGS
    return words, tags


def collate(sentences):
    words = torch.full((len(sentences), MAX_LEN), PAD_ID)
    tags = torch.full((len(sentences), MAX_LEN), PAD_TAG)
    for i, (w, t) in enumerate(sentences):
        words[i, :len(w)] = w
        tags[i, :len(t)] = t
    return words, tags


class ConvTagger(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, dim, padding_idx=PAD_ID)
        self.conv1 = nn.Conv1d(dim, dim, 5, padding=2)
        self.conv2 = nn.Conv1d(dim, dim, 5, padding=2)
        self.out = nn.Linear(dim, N_TAGS)

    def forward(self, words):
        h = self.emb(words).transpose(1, 2)
        h = F.gelu(self.conv1(h))
        h = F.gelu(self.conv2(h)) + h
        return self.out(h.transpose(1, 2))


model = ConvTagger()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)


@torch.compile
def train_loss(words, tags):
    logits = model(words)
    return F.cross_entropy(logits.reshape(-1, N_TAGS), tags.reshape(-1))


batches = []
for b in range(6):
    lo = MAX_LEN if b < 3 else 40
    lengths = torch.randint(lo, MAX_LEN + 1, (BATCH,)).tolist()
    batches.append(collate([make_sentence(n) for n in lengths]))

for step, (words, tags) in enumerate(batches):
    loss = train_loss(words, tags)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}", flush=True)
print("training finished")
