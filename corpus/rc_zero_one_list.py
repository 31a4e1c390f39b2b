"""A set loss over a list of per-image target boxes, 0 to 5 boxes per image (after
pytorch/pytorch#136605: several inputs whose sizes are usually above 1 but sometimes 0 or 1,
each such size a graph of its own, in every combination)."""
import torch

torch.manual_seed(0)


def pad(boxes_per_image, max_boxes=8):
    out = torch.zeros(len(boxes_per_image), max_boxes, 4)
    for i, boxes in enumerate(boxes_per_image):
        out[i, : len(boxes)] = boxes
    return out


@torch.compile(backend="eager")
def set_loss(pred, boxes_per_image):
    target = pad(boxes_per_image)
    return (pred - target).abs().mean()


for step in range(14):
    counts = torch.randint(0, 6, (4,)).tolist()
    loss = set_loss(torch.rand(4, 8, 4), [torch.rand(n, 4) for n in counts])
    print(step, counts, round(float(loss), 4))
