import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, D, UNK = 50, 16, 1


class BagOfWords(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.out = nn.Linear(D, 2)

    def forward(self, ids):
        vecs = self.emb(ids)
        return self.out(vecs.mean(1))


def predict(model, ids):
    # a newer tokenizer may emit ids the model never saw: map them to <unk> and retry
    try:
        return model(ids)
    except IndexError:
        print(f"  out-of-vocabulary ids {ids[ids >= VOCAB].tolist()}: mapped to <unk>")
        return model(torch.where(ids >= VOCAB, torch.full_like(ids, UNK), ids))


model = BagOfWords().eval()
compiled = torch.compile(model)
batches = [torch.randint(2, VOCAB, (4, 6)) for _ in range(3)]
batches[2][1, 3] = VOCAB + 7                   # one token from the newer tokenizer

with torch.no_grad():
    for i, ids in enumerate(batches):
        print(f"batch {i}")
        ids = torch.where(ids >= VOCAB, torch.full_like(ids, UNK), ids)
        e = predict(model, ids)
        c = predict(compiled, ids)
        print(f"  pred {e.argmax(-1).tolist()} max |compiled - eager| = {(e - c).abs().max().item():.2e}")
