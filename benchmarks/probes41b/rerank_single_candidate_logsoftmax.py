"""Listwise re-ranker: temperature-scaled log-softmax over candidate scores.

Each query has a handful of retrieved candidates; scores are squeezed to a
1-D vector and turned into log-probabilities with a learned (0-d) inverse
temperature.  A query that retrieved a single candidate squeezes to a 0-d
score, and ``log_softmax(score * inv_temp, dim=-1)`` on two 0-d tensors hits
Inductor's mul+softmax pattern pass.

Source: pytorch/pytorch issue #190418 ("[Inductor] IndexError in
_other_is_broadcasted_in_dim when log_softmax receives 0D scalar from mul").
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Reranker(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.q_proj = nn.Linear(dim, dim)
        self.d_proj = nn.Linear(dim, dim)
        self.inv_temp = nn.Parameter(torch.tensor(2.0))

    def forward(self, query, docs):
        q = self.q_proj(query)                     # (dim,)
        d = self.d_proj(docs)                      # (n, dim)
        scores = (d @ q).squeeze()                 # (n,) -- 0-d when n == 1
        return torch.log_softmax(scores * self.inv_temp, dim=-1)


def main():
    model = Reranker().eval()
    scorer = torch.compile(model)
    counts = [4, 4, 1, 3]
    with torch.no_grad():
        for qi, n in enumerate(counts):
            query = torch.randn(32)
            docs = torch.randn(n, 32)
            logp = scorer(query, docs)
            best = int(logp.reshape(-1).argmax())
            print(f"query {qi}: {n} candidates, best={best}, "
                  f"logp={logp.reshape(-1)[best].item():.4f}")


if __name__ == "__main__":
    main()
