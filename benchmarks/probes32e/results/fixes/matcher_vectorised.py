import torch
import torch.nn as nn

torch.manual_seed(0)


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(-1)
    area_b = (b[:, 2:] - b[:, :2]).prod(-1)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


@torch.compile
def matching_loss(pred_boxes, pred_logits, gt_boxes):
    targets = torch.zeros_like(pred_logits)
    ious = box_iou(pred_boxes, gt_boxes).amax(dim=1)
    targets = torch.maximum(targets, (ious > 0.5).float())
    cls_loss = nn.functional.binary_cross_entropy_with_logits(pred_logits, targets)
    return cls_loss, targets.sum()


def random_boxes(n):
    xy = torch.rand(n, 2) * 200
    wh = torch.rand(n, 2) * 60 + 20
    return torch.cat([xy, xy + wh], dim=1)


head = nn.Linear(16, 5)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
anchor_boxes = random_boxes(300)
features = torch.randn(300, 16)
for step in range(10):
    n_objects = int(torch.randint(2, 12, ()).item())
    gt_boxes = random_boxes(n_objects)
    out = head(features)
    loss, n_pos = matching_loss(anchor_boxes + out[:, :4], out[:, 4], gt_boxes)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {n_objects} objects, {int(n_pos)} positives, loss {loss.item():.4f}")
