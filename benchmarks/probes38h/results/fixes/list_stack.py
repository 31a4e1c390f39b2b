# Micro-batching server: the compiled step takes the list of queued requests as it is.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Embedding(100, 32), nn.Linear(32, 32), nn.Tanh()).eval()
head = nn.Linear(32, 2).eval()


@torch.compile
def serve_batch(ids):
    pooled = encoder(ids).mean(1)
    scores = head(pooled).softmax(-1)
    return scores[:, 1]


gen = torch.Generator().manual_seed(1)
queue = [{"id": i, "ids": torch.randint(0, 100, (6,), generator=gen)} for i in range(60)]
with torch.inference_mode():
    start = 0
    for n in [3, 1, 2, 4, 3]:  # how many requests arrived this tick
        batch = queue[start : start + n]
        start += n
        probs = serve_batch(torch.stack([r["ids"] for r in batch]))
        print(n, [f"{p:.3f}" for p in probs.tolist()])
