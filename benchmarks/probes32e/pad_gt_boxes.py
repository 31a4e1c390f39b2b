import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def pad_targets(gt_boxes_per_image, max_boxes=20):
    padded = torch.zeros(len(gt_boxes_per_image), max_boxes, 4)
    valid = torch.zeros(len(gt_boxes_per_image), max_boxes, dtype=torch.bool)
    for i, boxes in enumerate(gt_boxes_per_image):
        padded[i, : len(boxes)] = boxes
        valid[i, : len(boxes)] = True
    return padded, valid


@torch.compile
def set_loss(pred_boxes, gt_boxes_per_image):
    gt, valid = pad_targets(gt_boxes_per_image)
    dist = torch.cdist(pred_boxes, gt)                      # (B, Q, G)
    dist = dist.masked_fill(~valid[:, None, :], 1e4)
    nearest = dist.min(dim=1).values                       # (B, G)
    return (nearest * valid).sum() / valid.sum().clamp(min=1)


model = nn.Linear(32, 10 * 4)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(12):
    feats = torch.randn(4, 32)
    pred = model(feats).view(4, 10, 4).sigmoid()
    counts = torch.randint(0, 6, (4,)).tolist()
    targets = [torch.rand(n, 4) for n in counts]
    loss = set_loss(pred, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: boxes per image {counts}, loss {loss.item():.4f}")
