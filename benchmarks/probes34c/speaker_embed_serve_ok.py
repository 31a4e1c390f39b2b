"""Serve a speaker-embedding model to requests with a varying number of
utterances. fullgraph=True, dynamic=False; the utterance dimension of the
normalised features is marked dynamic."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SpeakerEncoder(nn.Module):
    def __init__(self, feats=40, dim=64, emb=32):
        super().__init__()
        self.conv1 = nn.Conv1d(feats, dim, 5, padding=2)
        self.conv2 = nn.Conv1d(dim, dim, 3, padding=1)
        self.proj = nn.Linear(2 * dim, emb)

    def forward(self, feats):
        h = F.relu(self.conv1(feats))
        h = F.relu(self.conv2(h))
        stats = torch.cat([h.mean(-1), h.std(-1)], dim=-1)
        return F.normalize(self.proj(stats), dim=-1)


torch.manual_seed(0)
encoder = SpeakerEncoder().eval()
serve = torch.compile(encoder, fullgraph=True, dynamic=False)
enrolled = F.normalize(torch.randn(3, 32), dim=-1)

gen = torch.Generator().manual_seed(2)
with torch.no_grad():
    for i, n in enumerate([4, 7, 2, 9, 5, 6, 3, 8, 10, 4]):
        raw = torch.randn(n, 40, 100, generator=gen) * 3 + 1
        feats = (raw - raw.mean(-1, keepdim=True)) / (raw.std(-1, keepdim=True) + 1e-5)
        torch._dynamo.mark_dynamic(feats, 0)
        emb = serve(feats)
        best = (emb @ enrolled.T).argmax(1)
        print(f"request {i}: {n} utterances -> speakers {best.tolist()}")
