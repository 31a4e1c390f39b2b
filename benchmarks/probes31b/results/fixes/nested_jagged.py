import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM = 1000, 32
embedding_table = torch.randn(VOCAB, DIM)


class SentenceEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(DIM, 64), nn.GELU(), nn.Linear(64, DIM))
        self.norm = nn.LayerNorm(DIM)

    def forward(self, words):
        h = self.norm(words + self.ff(words))
        return torch.stack([s.mean(0) for s in h.unbind()])


def collate(token_lists):
    return torch.nested.nested_tensor([embedding_table[t] for t in token_lists], layout=torch.jagged)


encoder = SentenceEncoder().eval()
encode = torch.compile(encoder)

corpus = [torch.randint(0, VOCAB, (n,)) for n in (5, 12, 7, 3, 9, 15, 4, 11, 6, 8, 10, 2)]
with torch.no_grad():
    for start in range(0, len(corpus), 4):
        batch = corpus[start:start + 4]
        emb = encode(collate(batch))
        sims = torch.nn.functional.cosine_similarity(emb[0:1], emb[1:])
        print(f"batch {start // 4}: lengths {[len(t) for t in batch]} sim to first {sims.numpy().round(3)}")
