
import torch
import torch.nn as nn

torch.manual_seed(0)

class QueryDocRanker(nn.Module):
    def __init__(self, dim=96):
        super().__init__()
        self.query_tower = nn.Sequential(nn.Linear(dim, 256), nn.ReLU(), nn.Linear(256, 64))
        self.doc_tower = nn.Sequential(nn.Linear(dim, 256), nn.ReLU(), nn.Linear(256, 64))

    def forward(self, q, docs):
        qe = self.query_tower(q)
        de = self.doc_tower(docs)
        return (de @ qe.unsqueeze(-1)).squeeze(-1)

model = QueryDocRanker().eval()
qmodel = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
ranker = torch.compile(qmodel)

with torch.inference_mode():
    for step, n_docs in enumerate([20, 20, 20, 20]):
        q = torch.randn(1, 96)
        docs = torch.randn(n_docs, 96)
        scores = ranker(q, docs)
        top = scores.topk(3).indices.tolist()
        print(f"request {step}: {n_docs} docs, top3 {top}")
