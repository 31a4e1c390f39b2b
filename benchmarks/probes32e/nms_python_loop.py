import torch
import torch.nn as nn

torch.manual_seed(0)


def pairwise_iou(boxes):
    lt = torch.max(boxes[:, None, :2], boxes[None, :, :2])
    rb = torch.min(boxes[:, None, 2:], boxes[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area = (boxes[:, 2:] - boxes[:, :2]).prod(-1)
    return inter / (area[:, None] + area[None, :] - inter)


class Detector(nn.Module):
    def __init__(self, num_boxes=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 16, 5, stride=4), nn.ReLU(),
                                     nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.boxes = nn.Linear(256, num_boxes * 4)
        self.scores = nn.Linear(256, num_boxes)

    def forward(self, image, iou_thresh=0.5):
        h = self.encoder(image)
        xy = (self.boxes(h).view(-1, 4)[:, :2] * 20).sigmoid() * 100
        wh = self.boxes(h).view(-1, 4)[:, 2:].sigmoid() * 40 + 10
        boxes = torch.cat([xy, xy + wh], dim=1)
        scores = self.scores(h).view(-1).sigmoid()
        order = scores.argsort(descending=True)
        boxes, scores = boxes[order], scores[order]
        iou = pairwise_iou(boxes)
        keep = torch.ones_like(scores, dtype=torch.bool)
        for i in range(boxes.size(0)):
            if keep[i]:
                keep &= ~((iou[i] > iou_thresh) & (torch.arange(len(keep)) > i))
        return boxes, scores, keep


detector = torch.compile(Detector().eval())
with torch.no_grad():
    for frame in range(3):
        image = torch.rand(1, 3, 96, 96)
        boxes, scores, keep = detector(image)
        print(f"frame {frame}: kept {int(keep.sum())} of {len(keep)} boxes, "
              f"top score {scores[0]:.4f}")
