# Detection post-processing kept in one graph: the user enabled
# capture_dynamic_output_shape_ops so that the score filter (boolean mask) stays
# in the graph, and returns early when an image has no detections.
import torch

torch._dynamo.config.capture_dynamic_output_shape_ops = True


def decode(anchors, deltas):
    wa, ha = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    cx, cy = anchors[:, 0] + 0.5 * wa, anchors[:, 1] + 0.5 * ha
    dx, dy, dw, dh = deltas.unbind(-1)
    cx, cy = cx + dx * wa, cy + dy * ha
    w, h = wa * dw.clamp(max=4.0).exp(), ha * dh.clamp(max=4.0).exp()
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)


def postprocess(anchors, deltas, logits, score_thresh: float = 0.6):
    scores = logits.sigmoid()
    boxes = decode(anchors, deltas)
    keep = scores > score_thresh
    boxes, scores = boxes[keep], scores[keep]
    if boxes.shape[0] == 0:
        return torch.zeros(0, 4), torch.zeros(0)
    boxes = boxes.clamp(min=0.0, max=64.0)
    return boxes, scores


torch.manual_seed(0)
xy = torch.rand(20, 2) * 48
anchors = torch.cat([xy, xy + 16], 1)
post = torch.compile(postprocess, fullgraph=True)
for img in range(2):
    deltas = torch.randn(20, 4) * 0.1
    logits = torch.randn(20)
    boxes, scores = post(anchors, deltas, logits)
    print(img, boxes.shape[0], round(scores.sum().item(), 4))
