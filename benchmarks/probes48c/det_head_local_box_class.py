"""Anchor-free detection head: per-location class scores and box deltas, top-k decode.

After pytorch/pytorch#161562: a class statement inside the compiled forward
(Dynamo cannot trace __build_class__ and breaks the graph there).
"""
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, c=32):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, c, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(c, c, 3, stride=2, padding=1), nn.ReLU(),
        )

    def forward(self, x):
        return self.body(x)


class DetectionHead(nn.Module):
    def __init__(self, c=32, num_classes=5, topk=10):
        super().__init__()
        self.backbone = Backbone(c)
        self.cls = nn.Conv2d(c, num_classes, 1)
        self.box = nn.Conv2d(c, 4, 1)
        self.topk = topk

    def forward(self, images):
        feats = self.backbone(images)
        logits = self.cls(feats).flatten(2)            # (N, C, HW)
        deltas = self.box(feats).flatten(2)            # (N, 4, HW)

        class Detections:
            def __init__(self, scores, boxes):
                self.scores = scores
                self.boxes = boxes

            def best(self, k):
                s, idx = self.scores.amax(1).topk(k, dim=-1)
                b = self.boxes.gather(2, idx.unsqueeze(1).expand(-1, 4, -1))
                return s, b

        dets = Detections(logits.sigmoid(), deltas.exp())
        return dets.best(self.topk)


def main():
    torch.manual_seed(0)
    model = DetectionHead().eval()
    compiled = torch.compile(model)
    with torch.no_grad():
        for step in range(3):
            images = torch.randn(2, 3, 64, 64)
            scores, boxes = compiled(images)
            ref_scores, ref_boxes = model(images)
            ok = torch.allclose(scores, ref_scores, atol=1e-5) and torch.allclose(boxes, ref_boxes, atol=1e-5)
            print(f"step {step}: top score {scores.max().item():.4f} boxes {tuple(boxes.shape)} match={ok}")


if __name__ == "__main__":
    main()
