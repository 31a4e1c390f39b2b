import logging
import os

import torch
import torch.nn as nn

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
log = logging.getLogger("reranker")
torch.manual_seed(0)
CANDIDATES_PER_QUERY = 8


class CrossScorer(nn.Module):
    def __init__(self, dim=48):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(2 * dim, 96), nn.ReLU(), nn.Linear(96, 1))

    def forward(self, query_vecs, cand_vecs):
        pairs = torch.cat([query_vecs, cand_vecs], dim=-1)
        scores = self.mlp(pairs).squeeze(-1)
        return scores.view(-1, CANDIDATES_PER_QUERY).softmax(dim=-1)


scorer = torch.compile(CrossScorer().eval())

requests = [(4, 8), (2, 8), (3, 7)]  # (queries, candidates each)
with torch.no_grad():
    for req_id, (n_q, n_c) in enumerate(requests):
        q = torch.randn(n_q, 1, 48).expand(n_q, n_c, 48).reshape(-1, 48)
        c = torch.randn(n_q * n_c, 48)
        try:
            probs = scorer(q, c)
        except Exception:
            log.exception("request %d: scorer failed, aborting worker for a core dump", req_id)
            os.abort()
        log.info("request %d: best candidates %s", req_id, probs.argmax(-1).tolist())
