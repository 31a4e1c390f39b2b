"""A small detection head on CUDA (anchor-free: per-cell class scores and box offsets) with its
post-processing inside the compiled function: sigmoid, top-k cells, decoded boxes, and the
kept scores turned into Python floats with .cpu().tolist() for the JSON response. tolist() on a
float tensor cannot be traced ("Tensor.tolist() with non-integer tensor"), so Dynamo breaks the
function at that line and the rest of the post-processing runs in a second graph. The fix:
return tensors from the compiled function and call .cpu().tolist() on them after it returns."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

backbone = nn.Sequential(
    nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
).to(device).eval()
cls_head = nn.Conv2d(64, 5, 1).to(device).eval()
box_head = nn.Conv2d(64, 4, 1).to(device).eval()


@torch.compile
def detect(img, k: int = 8):
    feat = backbone(img)
    scores = cls_head(feat).sigmoid().flatten(2)          # (B, C, H*W)
    offsets = box_head(feat).flatten(2)                   # (B, 4, H*W)
    best, cls = scores.max(dim=1)                         # (B, H*W)
    top, cell = best.topk(k, dim=1)
    kept = top.cpu().tolist()
    w = feat.shape[-1]
    cx, cy = (cell % w).float() * 4 + 2, (cell // w).float() * 4 + 2
    off = offsets.gather(2, cell[:, None, :].expand(-1, 4, -1))
    boxes = torch.stack([cx - off[:, 0].exp(), cy - off[:, 1].exp(),
                         cx + off[:, 2].exp(), cy + off[:, 3].exp()], dim=-1)
    return kept, boxes, cls.gather(1, cell)


with torch.no_grad():
    for i in range(6):
        img = torch.randn(2, 3, 128, 128, device=device)
        kept, boxes, labels = detect(img)
        if i % 2 == 1:
            print(f"image batch {i + 1}: top score {max(kept[0]):.3f}, box0 w {(boxes[0, 0, 2] - boxes[0, 0, 0]).item():.2f}")
