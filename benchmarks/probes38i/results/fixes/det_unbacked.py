# Detection training loss over a batch where each image has its own number of
# ground-truth boxes (0..3), passed as a list of per-image tensors; the batched loss
# function is compiled.
import torch

torch.manual_seed(0)


def giou_like_loss(pred, gt):
    lt = torch.max(pred[:, None, :2], gt[None, :, :2])
    rb = torch.min(pred[:, None, 2:], gt[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area_p = (pred[:, 2:] - pred[:, :2]).prod(-1)
    area_g = (gt[:, 2:] - gt[:, :2]).prod(-1)
    iou = inter / (area_p[:, None] + area_g[None] - inter + 1e-6)
    best = iou.max(1).values if gt.shape[0] > 0 else torch.zeros_like(area_p)
    return (1 - best).mean()


@torch.compile
def batch_loss(preds, gts):
    return sum(giou_like_loss(p, g) for p, g in zip(preds, gts)) / len(preds)


def rand_boxes(n, g):
    xy = torch.rand(n, 2, generator=g)
    return torch.cat([xy, xy + torch.rand(n, 2, generator=g)], 1)


g = torch.Generator().manual_seed(1)
for step in range(10):
    counts = torch.randint(0, 4, (4,), generator=g).tolist()
    preds = [rand_boxes(6, g) for _ in counts]
    gts = [rand_boxes(c, g) for c in counts]
    for t in gts:
        torch._dynamo.decorators.mark_unbacked(t, 0)
    print(f"step {step} boxes/image {counts} loss {batch_loss(preds, gts).item():.4f}")
