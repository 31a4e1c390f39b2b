"""Export a detector head that returns a typing.NamedTuple, then save it with
torch.export.save for the serving fleet.

Export succeeds, but the output TreeSpec holds a namedtuple class that has no
serialized type name, so torch.export.save fails (source: pytorch/pytorch
PR #123388 "[pytree] Fix namedtuple serialization" / PR #159322 "[export]
Automatically register namedtuples", 2025; the user-side fix is
torch.utils._pytree._register_namedtuple).
"""
import io
from typing import NamedTuple

import torch
import torch.nn as nn

torch.manual_seed(0)


class Detections(NamedTuple):
    boxes: torch.Tensor
    scores: torch.Tensor


class DetHead(nn.Module):
    def __init__(self, ch=32, anchors=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(ch, ch), nn.ReLU())
        self.box = nn.Linear(ch, anchors * 4)
        self.cls = nn.Linear(ch, anchors)

    def forward(self, feats):
        h = self.body(feats)
        boxes = self.box(h).view(feats.shape[0], -1, 4)
        scores = torch.sigmoid(self.cls(h))
        return Detections(boxes, scores)


def main():
    model = DetHead().eval()
    feats = torch.randn(2, 32)
    ep = torch.export.export(model, (feats,))
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    buf.seek(0)
    loaded = torch.export.load(buf)
    served = torch.compile(loaded.module(), fullgraph=True)
    with torch.no_grad():
        det = served(torch.randn(2, 32))
    print(f"boxes {tuple(det.boxes.shape)} best score {det.scores.max().item():.4f}")


if __name__ == "__main__":
    main()
