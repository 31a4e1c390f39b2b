"""Chat-style sampling: each request brings its own temperature and top-k, applied by a compiled sampler."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM = 120, 64

lm = nn.Sequential(nn.Embedding(VOCAB, DIM), nn.Linear(DIM, DIM), nn.GELU(), nn.Linear(DIM, VOCAB)).eval()


@torch.compile
def sample_next(logits, temperature, top_k):
    logits = logits / temperature
    vals, idx = torch.topk(logits, top_k, dim=-1)
    probs = torch.softmax(vals, dim=-1)
    choice = torch.multinomial(probs, 1)
    return idx.gather(-1, choice)


requests = [(0.7, 40), (1.0, 50), (0.85, 40), (1.2, 20), (0.6, 40), (0.9, 50),
            (1.1, 30), (0.75, 40), (0.95, 20), (0.8, 50)]
with torch.no_grad():
    for i, (temperature, top_k) in enumerate(requests):
        tok = torch.randint(0, VOCAB, (1, 1))
        out = []
        for _ in range(8):
            logits = lm(tok)[:, -1]
            tok = sample_next(logits, temperature, top_k)
            out.append(tok.item())
        print(f"request {i} (T={temperature}, k={top_k}): {out}")
