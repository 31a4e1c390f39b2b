"""Two-tower retrieval: embed a corpus of documents and rank them for a few
queries. The model is compiled once with model.encode_doc = torch.compile(model.encode_doc)
model.encode_query = torch.compile(model.encode_query) before indexing."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch._dynamo.utils as _u, atexit
atexit.register(lambda: print("dynamo frames", dict(_u.counters["frames"])))


class TwoTower(nn.Module):
    def __init__(self, vocab=1000, dim=64):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.query_proj = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.doc_proj = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))

    def encode_query(self, tokens):
        return F.normalize(self.query_proj(self.emb(tokens)), dim=-1)

    def encode_doc(self, tokens):
        return F.normalize(self.doc_proj(self.emb(tokens)), dim=-1)

    def forward(self, q_tokens, d_tokens):
        return self.encode_query(q_tokens) @ self.encode_doc(d_tokens).T


torch.manual_seed(0)
model = TwoTower().eval()
model.encode_doc = torch.compile(model.encode_doc)
model.encode_query = torch.compile(model.encode_query)

corpus = torch.randint(0, 1000, (2048, 24))
queries = torch.randint(0, 1000, (4, 8))
with torch.no_grad():
    index = torch.cat([model.encode_doc(chunk) for chunk in corpus.split(256)])
    for i, q in enumerate(queries):
        scores = model.encode_query(q.unsqueeze(0)) @ index.T
        top = scores.topk(3).indices[0].tolist()
        print(f"query {i}: top docs {top}")
print(f"indexed {index.shape[0]} documents")
