# YOLACT-style "Fast NMS" written in plain torch: decode boxes, take a fixed
# top-k, pairwise IoU matrix, suppress with an upper-triangular max, and mask by
# score threshold with torch.where (no data-dependent shapes).
import torch


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)


def fast_nms(boxes, logits, k: int = 32, iou_thresh: float = 0.3, score_thresh: float = 0.6):
    scores = logits.sigmoid()
    top, idx = scores.topk(k)
    cand = boxes[idx]
    iou = box_iou(cand, cand).triu(diagonal=1)
    max_iou = iou.max(dim=0).values
    keep = (max_iou <= iou_thresh) & (top > score_thresh)
    kept_scores = torch.where(keep, top, torch.zeros_like(top))
    return cand, kept_scores, keep.sum()


torch.manual_seed(0)
post = torch.compile(fast_nms)
for img in range(3):
    xy = torch.rand(64, 2) * 100
    wh = torch.rand(64, 2) * 30 + 5
    boxes = torch.cat([xy, xy + wh], 1)
    logits = torch.randn(64)
    cand, s, n = post(boxes, logits)
    print(img, int(n), round(s.sum().item(), 4), round(cand[s > 0].sum().item(), 2))
