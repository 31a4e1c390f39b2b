"""Micro-batching classification server.  Requests are grouped into batches of whatever
size the queue holds at that moment; the compiled predict function is built with
dynamic=True so that a new batch size should not recompile.  Post-processing (top-k
labels per request) is done per row inside the compiled function."""
import torch
import torch.nn as nn

torch.manual_seed(0)
NUM_CLASSES, FEAT, TOPK = 20, 24, 3

model = nn.Sequential(
    nn.Linear(FEAT, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, NUM_CLASSES),
).eval()


@torch.compile(dynamic=True)
def predict(feats):
    probs = model(feats).softmax(dim=-1)
    rows = []
    for i in range(probs.shape[0]):  # per-request post-processing
        top = probs[i].topk(TOPK)
        rows.append(torch.stack([top.values, top.indices.to(probs.dtype)]))
    return torch.stack(rows)


def request_stream(n):
    g = torch.Generator().manual_seed(1)
    for rid in range(n):
        yield rid, torch.randn(FEAT, generator=g)


def batches(stream, sizes):
    stream = iter(stream)
    for size in sizes:
        items = [next(stream) for _ in range(size)]
        yield [rid for rid, _ in items], torch.stack([f for _, f in items])


# how many requests were waiting each time the batcher woke up
queue_sizes = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 5]
served = 0
with torch.no_grad():
    for rids, feats in batches(request_stream(sum(queue_sizes)), queue_sizes):
        out = predict(feats)
        served += len(rids)
        best = out[:, 1, 0].long().tolist()
        print(f"batch of {len(rids):2d}: first label {best[0]:2d}, "
              f"mean top1 prob {out[:, 0, 0].mean().item():.4f}")
print(f"served {served} requests")
