"""Part-of-speech tagger inference: emission scores from a small encoder, then Viterbi
decoding of each padded sentence back to its own length."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, TAGS, DIM = 300, 6, 24


class EmissionTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.mix = nn.Linear(DIM, DIM)
        self.out = nn.Linear(DIM, TAGS)
        self.trans = nn.Parameter(torch.randn(TAGS, TAGS) * 0.5)

    def decode(self, tokens, lengths):
        em = self.out(torch.tanh(self.mix(self.emb(tokens))))   # (B, T, TAGS)
        mask = torch.arange(tokens.size(1))[None] < lengths[:, None]
        score = em[:, 0]
        backpointers = []
        for t in range(1, tokens.size(1)):
            best, idx = (score[:, :, None] + self.trans).max(dim=1)
            backpointers.append(idx)
            score = torch.where(mask[:, t, None], best + em[:, t], score)
        paths = []
        for b in range(tokens.size(0)):
            tag = score[b].argmax()
            path = [tag]
            for bp in reversed(backpointers[: lengths[b] - 1]):
                tag = bp[b, tag]
                path.append(tag)
            paths.append(torch.stack(path[::-1]))
        return paths


tagger = EmissionTagger().eval()
decode = torch.compile(tagger.decode)
lengths = torch.tensor([7, 4, 6, 5])
tokens = torch.randint(1, VOCAB, (4, 7)) * (torch.arange(7)[None] < lengths[:, None])
with torch.no_grad():
    for epoch in range(3):
        paths = decode(tokens, lengths)
for n, path in enumerate(paths):
    print(f"sentence {n}: {path.tolist()}")
