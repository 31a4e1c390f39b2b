"""Retrieval re-ranker served with torch.compile: score candidates, take the top-k ids with
`.tolist()` to look up their metadata in a Python dict, then re-score the chosen ones. The
`.tolist()` in the middle of the compiled function is a graph break that cuts the work into
two graphs with eager Python between them; on a CPU the compiled version is barely faster
than eager (the user asks `compdiag perf` why)."""
import torch
import torch.nn as nn

torch.manual_seed(0)
BOOST = {i: 1.0 + (i % 7) * 0.05 for i in range(4096)}


class Reranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(128, 128)
        self.rescore = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 1))

    def forward(self, q, docs):
        scores = docs @ torch.tanh(self.query(q))
        ids = scores.topk(32).indices.tolist()
        boost = torch.tensor([BOOST[i] for i in ids])
        chosen = docs[ids]
        return self.rescore(chosen).squeeze(-1) * boost


model = torch.compile(Reranker().eval())
docs = torch.randn(4096, 128)
with torch.no_grad():
    for _ in range(20):
        out = model(torch.randn(128), docs)
print("top score", out.max().item())
