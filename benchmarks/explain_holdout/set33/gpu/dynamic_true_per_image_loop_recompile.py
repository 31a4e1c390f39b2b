"""A detection head served on CUDA with batches of varying size, compiled with dynamic=True so
that one graph serves every batch size. The post-processing keeps the top-k scores of each
image in a Python loop, `for i in range(scores.shape[0])`: to unroll it Dynamo needs the batch
size as a concrete int, so it specialises the symbolic size and guards on it. Every new batch
size fails the guard ("size mismatch at index 0") and compiles again, dynamic=True
notwithstanding; after 8 sizes the recompile limit is hit and the rest runs eagerly. The fix:
do it batched, scores.topk(k, dim=1) and gather, with no per-image Python loop."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
C, A, K = 16, 256, 8
backbone = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
                         nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(4), nn.Flatten()).to(device).eval()
cls_head = nn.Linear(64 * 16, A * C).to(device).eval()


@torch.compile(dynamic=True)
def detect(images):
    scores = cls_head(backbone(images)).view(-1, A, C).sigmoid().amax(-1)
    keep = []
    for i in range(scores.shape[0]):
        top, idx = scores[i].topk(K)
        keep.append(torch.stack([top, idx.float()], -1))
    return torch.stack(keep)


with torch.no_grad():
    for n, b in enumerate([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 3, 7, 12]):
        out = detect(torch.randn(b, 3, 64, 64, device=device))
        if n % 7 == 6:
            print(f"batch {b}: {tuple(out.shape)} mean score {out[..., 0].mean().item():.4f}")
